// How a tool call is shown to clients (spec/clients.md B3 tool frames, B4 approval `request`, F `tool.call.started`,
// `permission.approval.*`): its `display` block, its one-line `view`, a `description`, and the tool's own output.
// One builder per tool; the block kinds and keys are the ones the published web UI reads (`command`, `diff`,
// `file_io`, `todo_list`, `search`, `url_fetch`, `agent_call`, `skill_call`, `plan_review`; any other call is an
// `invocation`). Pure functions of the call's name and parsed input (and the session's working directory), so the
// transcript fold, the approval and the v1 frame build the same block.

type Input = Record<string, unknown>;
/** A display block: `kind` plus the kind's keys. */
export type DisplayBlock = { kind: string } & Record<string, unknown>;

/** What a block may need besides the call: the session's working directory (Bash runs there). */
export interface DisplayContext { cwd?: string }

const str = (x: unknown): string | undefined => (typeof x === 'string' ? x : undefined);

/** The longest `view` line. */
const VIEW_CHARS = 160;

/** One line of at most VIEW_CHARS characters (the first non-empty line; `…` when cut). */
function line(x: unknown): string | undefined {
  if (typeof x !== 'string') return undefined;
  const first = x.split('\n').map((l) => l.trim()).find((l) => l.length > 0);
  if (!first) return undefined;
  return first.length > VIEW_CHARS ? `${first.slice(0, VIEW_CHARS - 1)}…` : first;
}

/** How a tool's call is shown: its block and its view; `path` is `file_path`, else `path`. */
interface ToolShown {
  display?: (i: Input, path: string | undefined, ctx: DisplayContext) => DisplayBlock | undefined;
  view?: (i: Input, path: string | undefined) => string | undefined;
}

/** A todo's status in the web UI's words (spec/clients.md B4 todo: pending / in_progress / done). */
const todoStatus = (s: unknown) => (s === 'completed' ? 'done' : typeof s === 'string' ? s : 'pending');

const search: ToolShown = {
  display: (i, path) => (str(i.pattern) !== undefined ? { kind: 'search', query: i.pattern as string, ...(path ? { scope: path } : {}) } : undefined),
  view: (i) => {
    const pattern = line(i.pattern);
    return pattern && str(i.path) ? line(`${pattern} in ${i.path}`) : pattern;
  },
};

/** The tools whose calls have their own block or view. */
const TOOLS = new Map<string, ToolShown>([
  ['Bash', {
    display: (i, _p, ctx) => (str(i.command) !== undefined
      ? { kind: 'command', command: i.command as string, ...(ctx.cwd ? { cwd: ctx.cwd } : {}), language: 'bash', ...(str(i.description) ? { description: i.description } : {}) }
      : undefined),
    view: (i) => line(i.description) ?? line(i.command),
  }],
  ['Read', {
    display: (_i, path) => (path ? { kind: 'file_io', operation: 'read', path } : undefined),
    view: (_i, path) => line(path),
  }],
  ['Write', {
    display: (i, path) => (path ? { kind: 'file_io', operation: 'write', path, ...(str(i.content) !== undefined ? { content: i.content } : {}) } : undefined),
    view: (_i, path) => line(path),
  }],
  ['Edit', {
    display: (i, path) => (path ? { kind: 'diff', path, old_text: str(i.old_string) ?? '', new_text: str(i.new_string) ?? '' } : undefined),
    view: (_i, path) => line(path),
  }],
  ['Glob', search],
  ['Grep', search],
  ['WebFetch', { display: (i) => (str(i.url) ? { kind: 'url_fetch', url: i.url as string } : undefined), view: (i) => line(i.url) }],
  ['WebSearch', { display: (i) => (str(i.query) ? { kind: 'search', query: i.query as string } : undefined), view: (i) => line(i.query) }],
  ['Agent', {
    display: (i) => ({ kind: 'agent_call', name: str(i.subagent_type) ?? 'general-purpose', ...(str(i.description) ? { description: i.description } : {}) }),
    view: (i) => line(i.description),
  }],
  ['Skill', { display: (i) => (str(i.skill) ? { kind: 'skill_call', name: i.skill as string } : undefined), view: (i) => line(i.skill) }],
  ['AskUserQuestion', { view: (i) => (Array.isArray(i.questions) ? line((i.questions[0] as Input | undefined)?.question) : undefined) }],
  ['TodoWrite', {
    display: (i) => (Array.isArray(i.todos)
      ? { kind: 'todo_list', items: i.todos.map((x) => ({ title: str((x as Input | null)?.content) ?? '', status: todoStatus((x as Input | null)?.status) })) }
      : undefined),
    view: (i) => (Array.isArray(i.todos) ? `${i.todos.length} item${i.todos.length === 1 ? '' : 's'}` : undefined),
  }],
  ['ExitPlanMode', { display: (i) => (str(i.plan) !== undefined ? { kind: 'plan_review', plan: i.plan as string } : undefined) }],
]);

const isInput = (x: unknown): x is Input => !!x && typeof x === 'object' && !Array.isArray(x);
const pathOf = (i: Input) => str(i.file_path) ?? str(i.path);

/**
 * The block of a call whose tool has one (Bash `command` with `cwd` and `language`, Edit `diff` with `old_text` /
 * `new_text`, Read / Write `file_io`, TodoWrite `todo_list`, ...); undefined for other tools and for an input that is
 * not an object (a transcript frame then has none: the client renders `input`).
 */
export function toolDisplay(name: string, input: unknown, ctx: DisplayContext = {}): DisplayBlock | undefined {
  const display = TOOLS.get(name)?.display;
  return display && isInput(input) ? display(input, pathOf(input), ctx) : undefined;
}

/** A block for every call: the tool's own, else an `invocation` of the tool by name (v1 frames, approvals). */
export function callDisplay(name: string, input: unknown, ctx: DisplayContext = {}): DisplayBlock {
  return toolDisplay(name, input, ctx) ?? { kind: 'invocation', name, ...(toolView(name, input) ? { description: toolView(name, input) } : {}) };
}

/**
 * A tool frame's `view` (spec/clients.md B3, a string): the call in one line, as a client's collapsed tool row shows
 * it: Bash its description, else its command's first line; Read / Write / Edit the path; Glob / Grep the pattern
 * (`in <path>` when given); WebFetch the URL; WebSearch the query; Agent its description; Skill the skill name;
 * AskUserQuestion the first question; TodoWrite the item count; an MCP tool `<server>: <tool>`. Undefined otherwise.
 */
export function toolView(name: string, input: unknown): string | undefined {
  const i = isInput(input) ? input : {};
  const shown = TOOLS.get(name);
  if (shown) return shown.view?.(i, pathOf(i));
  const mcp = /^mcp__(.+?)__(.+)$/.exec(name);
  return mcp ? line(`${mcp[1]}: ${mcp[2]}`) : undefined;
}

/** F `tool.call.started` `description`: the call's view line, else the tool's name. */
export function toolDescription(name: string, input: unknown): string {
  return toolView(name, input) ?? name;
}

/** The arguments as an object (F `args`): the parsed input, `{}` when the model sent something else. */
export function callArgs(input: unknown): Record<string, unknown> {
  return isInput(input) ? input : {};
}

/** The status line Bash adds after a command's output (src/tools/bash.ts): what the model reads, not the command's own output. */
const BASH_STATUS = /(?:^|\n)\[(?:exit code -?\d+|killed by [A-Z0-9]+|timed out after [^\]\n]*|aborted; process group killed)\]$/;

/**
 * F `tool.result` `output`: the tool's own output, without the status the model is told besides it (`hi\n` for
 * `echo hi`, where `content` is `hi\n[exit code 0]`). Other tools' content is their output.
 */
export function toolOutput(name: string, content: string): string {
  if (name !== 'Bash') return content;
  const m = BASH_STATUS.exec(content);
  if (!m) return content;
  const body = content.slice(0, m.index);
  return body && m[0].startsWith('\n') ? `${body}\n` : body;
}

/** F `tool.progress` `update`: one progress payload as `{kind, text?}` (Bash output chunks `stdout`, MCP progress `progress`). */
export function progressUpdate(p: Record<string, unknown>): DisplayBlock {
  if (typeof p.output === 'string') return { kind: 'stdout', text: p.output };
  if (typeof p.progress === 'number') {
    const total = typeof p.total === 'number' && p.total > 0 ? p.total : undefined;
    return {
      kind: 'progress', ...(total !== undefined ? { percent: Math.min(100, Math.round((p.progress / total) * 1000) / 10) } : {}),
      ...(typeof p.message === 'string' ? { text: p.message } : {}),
    };
  }
  const { agent_id: _a, tool_call_id: _c, tool_name: name, ...data } = p;
  return { kind: 'custom', customKind: typeof name === 'string' ? name : 'tool', customData: data };
}
