import { parseArgs } from 'node:util';
import { PERMISSION_MODES, type PermissionModeName } from '../../../protocol/schemas/enums.ts';

export const OUTPUT_FORMATS = ['text', 'json', 'stream-json'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

/** What `svc-code -p` was asked to do. */
export interface PrintArgs {
  /** The prompt given on the command line; undefined (or `-`) = read it from standard input. */
  prompt?: string;
  outputFormat: OutputFormat;
  /** The directory to run in, as given (resolved against the process's cwd later). */
  cwd?: string;
  model?: string;
  permissionMode?: PermissionModeName;
  /** Overrides `[background] print_max_turns`: new turns that background completions may start (steer mode). */
  maxTurns?: number;
  /** Resume the last session of the directory. */
  continueLast: boolean;
  /** Resume this session. */
  sessionId?: string;
  help: boolean;
}

/** A command line that cannot be run as given (exit status 2). */
export class UsageError extends Error {}

export const PRINT_USAGE = `usage: svc-code -p [PROMPT] [options]        (also: svc-code print [PROMPT] [options])
  Runs one prompt in the current directory on this home's journal and exits; the session is then listed,
  readable, exportable and replayable through the daemon like any other. PROMPT is read from standard input
  when it is \`-\`, or absent and standard input is not a terminal.
options:
  --output-format text|json|stream-json
                           text (default): only the final assistant text on stdout
                           json: one object at the end {type:"result", session_id, result, reason, error?, usage,
                                 duration_ms, num_turns}
                           stream-json: one JSON line per event as it happens (the WebSocket's event frames),
                                 then the json object
  --cwd DIR                run in DIR (registered as a workspace like the daemon does)
  --model ALIAS            the model (an alias of config.toml's [models]); default: the session's, else default_model
  --permission-mode manual|auto|yolo
                           tool calls the mode would ask about are refused (the agent is told why); default:
                           the session's, else default_permission_mode
  --yolo                   the same as --permission-mode yolo
  --max-turns N            at most N follow-up turns started by background completions ([background] print_max_turns)
  -c, --continue           resume the last session of this directory
  --session ID             resume session ID
background work: [background] print_background_mode: exit (leave when the turn ends; running tasks are stopped
  unless keep_alive_on_exit), drain (wait for them, without feeding results back), steer (default: each completion
  starts a follow-up turn until none is pending); bounded by print_wait_ceiling_s. In print mode
  bash_task_timeout_s and the subagent and dynamic_workflow timeouts default to 0 (none) unless set.
exit status: 0 the last turn completed; 1 it failed, or background work was cut by a limit (error on stderr);
  2 usage error (bad option, unknown model or session, missing directory, unreadable stdin); 130 interrupted
  (Ctrl-C: the turn is aborted and journaled as cancelled).
stdout carries only the result; progress and warnings go to stderr.`;

/** Parses the options of print mode (`-p` / `--print` may appear among them); throws UsageError. */
export function parsePrintArgs(argv: string[]): PrintArgs {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(argv);
  } catch (err) {
    // node:util's messages may run over several lines (a hint after the first): the first says what is wrong.
    throw new UsageError((err as Error).message.split('\n')[0]!);
  }
  const { values, positionals } = parsed;
  const outputFormat = (values['output-format'] ?? 'text') as OutputFormat;
  if (!OUTPUT_FORMATS.includes(outputFormat)) throw new UsageError(`invalid --output-format: ${values['output-format']} (text, json or stream-json)`);
  const mode = values['permission-mode'];
  if (mode !== undefined && !(PERMISSION_MODES as readonly string[]).includes(mode)) {
    throw new UsageError(`invalid --permission-mode: ${mode} (${PERMISSION_MODES.join(', ')})`);
  }
  if (values.yolo && mode !== undefined && mode !== 'yolo') throw new UsageError(`--yolo contradicts --permission-mode ${mode}`);
  let maxTurns: number | undefined;
  if (values['max-turns'] !== undefined) {
    maxTurns = Number(values['max-turns']);
    if (!/^\d+$/.test(values['max-turns'])) throw new UsageError(`invalid --max-turns: ${values['max-turns']} (an integer >= 0)`);
  }
  if (values.continue && values.session !== undefined) throw new UsageError('--continue and --session cannot be combined');
  if (values.session !== undefined && !values.session) throw new UsageError('--session needs a session id');
  if (values.model !== undefined && !values.model) throw new UsageError('--model needs a model alias');
  if (values.cwd !== undefined && !values.cwd) throw new UsageError('--cwd needs a directory');
  const words = positionals;
  return {
    ...(words.length && !(words.length === 1 && words[0] === '-') ? { prompt: words.join(' ') } : {}),
    outputFormat,
    ...(values.cwd !== undefined ? { cwd: values.cwd } : {}),
    ...(values.model !== undefined ? { model: values.model } : {}),
    ...(values.yolo ? { permissionMode: 'yolo' as const } : mode !== undefined ? { permissionMode: mode as PermissionModeName } : {}),
    ...(maxTurns !== undefined ? { maxTurns } : {}),
    continueLast: values.continue ?? false,
    ...(values.session !== undefined ? { sessionId: values.session } : {}),
    help: values.help ?? false,
  };
}

function parse(argv: string[]) {
  return parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: {
      print: { type: 'boolean', short: 'p' },
      'output-format': { type: 'string' },
      cwd: { type: 'string' },
      model: { type: 'string' },
      'permission-mode': { type: 'string' },
      yolo: { type: 'boolean' },
      'max-turns': { type: 'string' },
      continue: { type: 'boolean', short: 'c' },
      session: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
}
