import { parseArgs } from 'node:util';
import { defaultServeOptions, type ServeOptions } from '../app/options.ts';
import type { Settings } from '../app/settings.ts';
import type { Logger } from '../lib/logger.ts';
import type { ContractChecker } from '../../protocol/contract-check.ts';

type Server = Awaited<ReturnType<typeof import('../app/server.ts').startServer>>;

/** The first wait before starting again after the shared journal failed; doubled after each failed start. */
const RESTART_FIRST_MS = 1_000;
const RESTART_MAX_MS = 30_000;

export function parseServe(argv: string[]): ServeOptions {
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

/**
 * `svc-code serve`: starts the daemon, prints where it listens and its token, and runs until a signal or
 * POST /shutdown. A shared PostgreSQL journal that fails (the database unreachable for longer than the write retry,
 * `SVC_CODE_JOURNAL_RETRY_MS`) starts the daemon again in place, on the same port, once the database answers: the
 * start is the one recovery every part already has (docs/journal.md "The database going away"). The LevelDB journal
 * stays failed until a restart by hand (its failure is the disk's: reads go on being served).
 */
export async function serve(argv: string[], settings: Settings): Promise<void> {
  const [{ createLogger }, { startServer }, { ContractChecker }] = await Promise.all([
    import('../lib/logger.ts'), import('../app/server.ts'), import('../../protocol/contract-check.ts'),
  ]);
  const log = createLogger(settings.logLevel);
  // Test runs of the CLI (SVC_CODE_CHECK_EVENTS=1) check events against the registry; a mismatch is logged and refused.
  const checker: ContractChecker | undefined = settings.checkEvents
    ? new ContractChecker((violation) => log.error({ violation }, 'event does not match its registry entry'))
    : undefined;
  const life = new Lifecycle(log);
  let options = parseServe(argv);
  let server = await startServer({ home: settings.home, settings, options, log, checker });
  life.running(server);
  announce(server, settings.home);
  for (;;) {
    const ended = await Promise.race([server.closed.then(() => 'closed' as const), journalFailure(server)]);
    // A failure during a stop that was asked for (the database away at POST /shutdown) ends the daemon as asked.
    if (ended === 'closed' || life.stopping || server.closing()) break;
    log.error({ err: ended }, 'the shared journal failed (the database unreachable past the retry bound): the daemon starts again once the database answers');
    await server.close();
    // The same port: the clients reconnect to the URL they know and catch up by seq. The same node id: the leases
    // this node held are its own again (its sessions are settled as a restart, not taken over from another node).
    options = { ...options, port: server.port };
    const same = { ...settings, nodeId: server.parts.nodeId };
    const again = await life.startAgain(() => startServer({ home: settings.home, settings: same, options, log, checker }));
    if (!again) break;
    server = again;
    process.stdout.write(`svc-code started again on ${server.baseUrl} (the journal database is back)\n`);
  }
  await server.closed;
  process.exit(0);
}

/** Resolves with the shared journal's failure; never, on LevelDB (a failed LevelDB journal is not restarted). */
function journalFailure(server: Server): Promise<Error> {
  const { journal, sharedJournalUrl } = server.parts;
  if (!sharedJournalUrl) return new Promise(() => undefined);
  return new Promise((resolve) => journal.once('failed', (err: Error) => resolve(err)));
}

function announce(server: Server, home: string): void {
  const { version, token } = server.parts;
  process.stdout.write(`svc-code ${version} listening on ${server.baseUrl}\n`);
  process.stdout.write(`access token: ${token}\n`);
  process.stdout.write(`web UI: ${server.baseUrl}/#token=${encodeURIComponent(token)}\n`);
  process.stdout.write(`home: ${home}\n`);
}

/**
 * The signals and the server they stop. The handlers go in before the daemon announces itself: a supervisor that
 * reads the token and stops the daemon at once must get the clean shutdown (a signal that came before the handlers
 * were in killed it outright). A signal while the daemon waits to start again ends the wait.
 */
class Lifecycle {
  stopping = false;
  private server: Server | undefined;
  private wake: (() => void) | undefined;

  constructor(private readonly log: Logger) {
    process.on('SIGINT', () => this.stop('SIGINT'));
    process.on('SIGTERM', () => this.stop('SIGTERM'));
  }

  /** The server a signal stops; a signal during its start stops it now. */
  running(server: Server): void {
    this.server = server;
    if (this.stopping) void server.close();
  }

  private stop(signal: string): void {
    // A repeated SIGTERM while shutting down must not cut the shutdown short; a second Ctrl-C forces the exit.
    if (this.stopping) {
      if (signal === 'SIGINT') process.exit(130);
      return;
    }
    this.stopping = true;
    this.log.info({ signal }, 'shutting down');
    this.wake?.();
    if (this.server) void this.server.close();
  }

  /** `start` until it works (waits doubling from 1 s to 30 s), or undefined once a signal asked to stop. */
  async startAgain(start: () => Promise<Server>): Promise<Server | undefined> {
    this.server = undefined;
    for (let wait = RESTART_FIRST_MS; !this.stopping; wait = Math.min(wait * 2, RESTART_MAX_MS)) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, wait);
        this.wake = () => { clearTimeout(timer); resolve(); };
      });
      if (this.stopping) break;
      try {
        const server = await start();
        this.running(server);
        return this.stopping ? (await server.closed, undefined) : server;
      } catch (err) {
        this.log.error({ err, retry_in_ms: Math.min(wait * 2, RESTART_MAX_MS) }, 'could not start again yet');
      }
    }
    return undefined;
  }
}
