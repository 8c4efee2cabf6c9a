import { DEFAULT_PORT } from '../app/options.ts';
import type { Settings } from '../app/settings.ts';

// Each command loads only what it runs (dynamic imports): `svc-code -p` never loads the HTTP and WebSocket stack,
// and `--help` loads nothing (docs/benchmarks.md "Print mode").

const USAGE = `usage: svc-code serve [--host 127.0.0.1] [--port ${DEFAULT_PORT}] [--dangerous-bypass-auth]
                      [--allow-remote-shutdown] [--allow-remote-terminals] [--debug-endpoints]
                      [--web-title TITLE] [--rebuild-projections] [--allowed-host NAME]...
                      [--journal-url postgres://user:pass@host:port/db]
       svc-code import <export.zip>
       svc-code journal dump <session_id> [--after-seq N]
       svc-code reindex
       svc-code replay <export.zip> [--tools record|live] [--workspace DIR] [--json] [--keep] [--stall-ms N]
       svc-code -p [PROMPT] [--output-format text|json|stream-json] [--cwd DIR] [--model ALIAS]
                   [--permission-mode manual|auto|yolo] [--yolo] [--max-turns N] [--continue | --session ID]
                      one prompt, non-interactively (also \`svc-code print\`; svc-code -p --help for more)
home: $SVC_CODE_HOME or ~/.svc-code; token: $SVC_CODE_SERVER_TOKEN or <home>/server.token`;

/** The process environment, read once here (the edge) into the settings every command is given (docs/settings.md). */
async function settingsFromProcess(): Promise<Settings> {
  return (await import('../app/settings.ts')).readSettings(process.env);
}

async function serve(argv: string[]): Promise<void> {
  const [{ serve: run }, settings] = await Promise.all([import('./serve.ts'), settingsFromProcess()]);
  return run(argv, settings);
}

/** The offline commands, each loaded when run. */
const TOOLS: Record<string, () => Promise<(home: string, argv: string[]) => Promise<number>>> = {
  import: async () => (await import('./import.ts')).importCommand,
  journal: async () => (await import('./journal-dump.ts')).journalCommand,
  reindex: async () => (await import('./reindex.ts')).reindexCommand,
  replay: async () => (await import('./replay.ts')).replayCommand,
  print: async () => (await import('./print/process.ts')).printFromProcess,
};

/** `-p` / `--print` anywhere before `--` selects print mode (`svc-code --model m -p "..."`). */
function printFlag(argv: string[]): boolean {
  const end = argv.indexOf('--');
  return (end < 0 ? argv : argv.slice(0, end)).some((a) => a === '-p' || a === '--print');
}

async function main(argv: string[]): Promise<void> {
  const [command = 'serve', ...rest] = argv;
  if (command === 'serve') return serve(rest);
  if (command !== 'print' && printFlag(argv)) return exit(await (await TOOLS.print!())((await settingsFromProcess()).home, argv));
  if (TOOLS[command]) return exit(await (await TOOLS[command]())((await settingsFromProcess()).home, rest));
  if (command === '--help' || command === '-h' || command === 'help') {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  // `svc-code --port 8000` is `svc-code serve --port 8000` (serve is the default command; its options are strict).
  if (command.startsWith('-')) return serve(argv);
  process.stderr.write(`unknown command: ${command}\n${USAGE}\n`);
  process.exit(2);
}

/** Exits once stdout and stderr are flushed (a pipe to a slow reader keeps what was written). */
function exit(code: number): void {
  process.exitCode = code;
  let pending = 2;
  const done = () => {
    if (--pending === 0) process.exit(code);
  };
  process.stdout.write('', done);
  process.stderr.write('', done);
}

main(process.argv.slice(2)).catch((err) => {
  process.stderr.write(`svc-code: ${(err as Error).message}\n`);
  process.exit(1);
});
