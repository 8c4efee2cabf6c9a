import { parseArgs } from 'node:util';
import { DEFAULT_PORT, defaultServeOptions, type ServeOptions } from '../app/options.ts';
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

function parseServe(argv: string[]): ServeOptions {
  const { values } = parseArgs({
    args: argv,
    options: {
      host: { type: 'string' },
      port: { type: 'string' },
      'dangerous-bypass-auth': { type: 'boolean' },
      'allow-remote-shutdown': { type: 'boolean' },
      'allow-remote-terminals': { type: 'boolean' },
      'debug-endpoints': { type: 'boolean' },
      'web-title': { type: 'string' },
      'rebuild-projections': { type: 'boolean' },
      'allowed-host': { type: 'string', multiple: true },
      'journal-url': { type: 'string' },
    },
    strict: true,
  });
  const opts = defaultServeOptions();
  if (values.host) opts.host = values.host;
  if (values.port !== undefined) {
    const port = Number(values.port);
    if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`invalid --port: ${values.port}`);
    opts.port = port;
  }
  opts.dangerousBypassAuth = values['dangerous-bypass-auth'] ?? false;
  opts.allowRemoteShutdown = values['allow-remote-shutdown'] ?? false;
  opts.allowRemoteTerminals = values['allow-remote-terminals'] ?? false;
  opts.debugEndpoints = values['debug-endpoints'] ?? false;
  opts.webTitle = values['web-title'];
  opts.rebuildProjections = values['rebuild-projections'] ?? false;
  opts.allowedHosts = values['allowed-host'] ?? [];
  opts.journalUrl = values['journal-url'] || undefined;
  return opts;
}

/** The process environment, read once here (the edge) into the settings every command is given (docs/settings.md). */
async function settingsFromProcess(): Promise<Settings> {
  return (await import('../app/settings.ts')).readSettings(process.env);
}

async function serve(argv: string[]): Promise<void> {
  const [{ createLogger }, { startServer }, { ContractChecker }, settings] = await Promise.all([
    import('../lib/logger.ts'), import('../app/server.ts'), import('../../protocol/contract-check.ts'), settingsFromProcess(),
  ]);
  const log = createLogger(settings.logLevel);
  const { home } = settings;
  // Test runs of the CLI (SVC_CODE_CHECK_EVENTS=1) check events against the registry; a mismatch is logged and refused.
  const checker = settings.checkEvents
    ? new ContractChecker((violation) => log.error({ violation }, 'event does not match its registry entry'))
    : undefined;
  // The handlers go in before the daemon announces itself: a supervisor that reads the token and stops the daemon at
  // once must get the clean shutdown (a signal that came before the handlers were in killed it outright).
  let server: Awaited<ReturnType<typeof startServer>> | undefined;
  let stopping = false;
  const stop = (signal: string) => {
    // A repeated SIGTERM while shutting down must not cut the shutdown short; a second Ctrl-C forces the exit.
    if (stopping) {
      if (signal === 'SIGINT') process.exit(130);
      return;
    }
    stopping = true;
    log.info({ signal }, 'shutting down');
    if (server) void server.close();
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
  server = await startServer({ home, settings, options: parseServe(argv), log, checker });
  // A signal during start-up: stop as soon as there is something to stop.
  if (stopping) void server.close();
  const { version, token } = server.parts;
  process.stdout.write(`svc-code ${version} listening on ${server.baseUrl}\n`);
  process.stdout.write(`access token: ${token}\n`);
  process.stdout.write(`web UI: ${server.baseUrl}/#token=${encodeURIComponent(token)}\n`);
  process.stdout.write(`home: ${home}\n`);
  await server.closed;
  process.exit(0);
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
