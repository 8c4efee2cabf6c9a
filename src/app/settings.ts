import os from 'node:os';
import path from 'node:path';
import { readEnvOverrides, type EnvOverrides } from '../config/env.ts';
import { CHANGE_WINDOW_MS } from '../config/defaults.ts';
import { DEFAULT_MODEL_IDLE_TIMEOUT_MS, DEFAULT_RETRY_BASE_MS } from '../engine/retry.ts';
import { DEFAULT_RUNTIME_IDLE_MS } from '../engine/idle-runtimes.ts';
import { ANY_POSITIVE, numberFromEnv, type EnvNumberRule } from '../lib/env-number.ts';
import { DEFAULT_RECONNECT, reconnectPolicy, type ReconnectPolicy } from '../mcp/reconnect.ts';
import { DEFAULT_DIRECTORY_URL, SNAPSHOT_PATH } from '../providers/catalog/directory.ts';
import { DEFAULT_WORKER_YOUNG_MB } from '../search/backend.ts';
import { DEFAULT_GREP_TIMEOUT_MS } from '../fs/grep.ts';
import { DEFAULT_MAX_UPLOAD_BYTES, DEFAULT_SWEEP_INTERVAL_MS, type UploadLimits } from '../uploads/types.ts';
import { DEFAULT_WEB_FETCH_LIMITS, type WebFetchLimits } from '../webfetch/page.ts';
import { DEFAULT_COALESCE_MS } from '../ws/coalesce.ts';
import { DEFAULT_LEASE_TTL_MS } from '../nodes/leases.ts';
import { DEFAULT_JOURNAL_RETRY_MS } from '../../journal/pg/defaults.ts';
import { LIVE_TURNS, RETRIM_IDLE_MS } from '../../projections/transcript/live/entry.ts';
import { DEFAULT_BUDGETS, type SearchBudgets } from '../../projections/search/types.ts';

/**
 * Everything the daemon (and print mode, and the offline commands) takes from its environment, read once at start
 * by `readSettings` and passed down: the phases hand each part the values it uses (docs/settings.md lists every
 * variable, its default and meaning). Nothing else reads the process environment, except where a child process's environment
 * is built (test/architecture/settings.test.ts keeps the list).
 *
 * A numeric variable that is set but not a number its rule takes keeps its default, and says so in `warnings`
 * (logged at start): a typo never stops the daemon, and never turns into 0 or NaN inside it.
 */
export interface Settings {
  /** `SVC_CODE_HOME`: the daemon's home (config, journal, token); default `~/.svc-code`. */
  home: string;
  /** `SVC_CODE_SERVER_TOKEN`: the bearer token; unset, `<home>/server.token` (made on first start). */
  serverToken?: string;
  /** `SVC_CODE_LOG_LEVEL`: pino's level; unset, `info` for serve, `error` for print mode. */
  logLevel?: string;
  /** `SVC_CODE_CHECK_EVENTS=1`: every event checked against the registry (test runs of the CLI). */
  checkEvents: boolean;
  /**
   * Each journal batch (group commit: every append waiting at that moment) is fsynced before it is acknowledged;
   * on unless `SVC_CODE_JOURNAL_FSYNC=0` (then kill -9 durable only; docs/journal.md "Durability").
   */
  journalFsync: boolean;
  /** `SVC_CODE_JOURNAL_URL`: a `postgres://` URL selects the PostgreSQL journal (`serve --journal-url` wins); unset, LevelDB. */
  journalUrl?: string;
  /**
   * `SVC_CODE_JOURNAL_RETRY_MS`: PostgreSQL: how long a write or read retries while the database is unreachable before
   * it fails (a failed journal makes `serve` start again in place once the database is back; docs/journal.md).
   */
  journalRetryMs: number;
  /**
   * `SVC_CODE_NODE_ID`: this daemon's node id among the daemons sharing one PostgreSQL journal (docs/scale-out.md);
   * unset, a fresh `node_<ULID>` at each start (openStorage).
   */
  nodeId?: string;
  /**
   * `SVC_CODE_NODE_URL`: where the other nodes reach this daemon's HTTP API (commands forwarded to a session's owner,
   * docs/scale-out.md); unset, `http://127.0.0.1:<the port it listens on>`.
   */
  nodeUrl?: string;
  /** `SVC_CODE_FOLLOW_INTERVAL_MS`: PostgreSQL: the catch-up read of other nodes' commits besides NOTIFY (a lost one costs at most this). */
  followIntervalMs: number;
  /**
   * `SVC_CODE_LEASE_TTL_MS`: PostgreSQL: how long a node's lease on a session outlives its last renewal (renewed every
   * third of it); a dead node's sessions are taken over within it plus a second (docs/scale-out.md "Leases").
   */
  leaseTtlMs: number;
  /** `SVC_CODE_RECONCILE_INTERVAL_MS`: how often daemons on one home reconcile their sessions. */
  reconcileIntervalMs: number;
  /** `SVC_CODE_ALLOWED_HOSTS`, `SVC_CODE_ALLOWED_ORIGINS`: comma-separated, added to `--allowed-host` and the own origins. */
  access: { allowedHosts: readonly string[]; allowedOrigins: readonly string[] };
  config: ConfigSettings;
  engine: EngineSettings;
  /** `SVC_CODE_OAUTH_HOST`, `SVC_CODE_OAUTH_POLL_UNIT_MS`: over `[oauth] host` / `poll_unit_ms` (docs/login.md). */
  oauth: { host?: string; pollUnitMs?: string };
  /** `SVC_CODE_PLUGINS_ALLOW_LOOPBACK_HTTP=1`: plain http to a loopback host for plugin sources and the marketplace (tests). */
  pluginsAllowLoopbackHttp: boolean;
  /** `SVC_CODE_CAPABILITY_STEP_DELAY_MS`: a pause before each capability install step (tests watch a running install). */
  capabilityStepDelayMs: number;
  /** `SVC_CODE_SEARCH_CANDIDATE_CAP` / `_POSTINGS_BUDGET` / `_DEADLINE_MS`, `SVC_CODE_SEARCH_WORKER_YOUNG_MB`. */
  search: { budgets: SearchBudgets; workerYoungMb: number };
  /** `SVC_CODE_UPLOAD_MAX_BYTES`, `SVC_CODE_UPLOAD_SWEEP_INTERVAL_MS`. */
  uploads: UploadLimits;
  /** `SVC_CODE_WS_MAX_BUFFERED_BYTES` (a client's high-water mark), `SVC_CODE_WS_COALESCE_MS` (0: no coalescing). */
  ws: { maxBufferedBytes: number; coalesceMs: number };
  /** `SVC_CODE_LIVE_TURNS`, `SVC_CODE_LIVE_RETRIM_MS`: the live transcripts' kept turns and re-trim delay. */
  live: { turns: number; retrimMs: number };
  /** `SVC_CODE_GREP_TIMEOUT_MS`: a `fs:grep` longer than this is 41305. */
  grepTimeoutMs: number;
  /** `SVC_CODE_MODEL_DIRECTORY_URL`, `SVC_CODE_MODEL_DIRECTORY_SNAPSHOT`: the public model directory and its snapshot. */
  modelDirectory: { url: string; snapshotPath: string };
  /** `SVC_CODE_TRACE_PROMPT`: the prompt-latency trace's file (docs/benchmarks.md); unset, no trace. */
  tracePrompt?: string;
  /** Variables set to a value that was not taken (each names the variable and the default used). */
  warnings: readonly string[];
}

/** What the config service takes from the environment. */
export interface ConfigSettings {
  /** Part B's environment overrides (`SVC_LOOP_*`, `SVC_MODEL_*`, ...; src/config/env.ts) and `SVC_CODE_MARKETPLACE_URL`. */
  overrides: EnvOverrides;
  /** `SVC_CODE_CONFIG_EVENT_WINDOW_MS`: changes within it make one `event.config.changed`. */
  changeWindowMs: number;
  /** `SVC_CODE_CONFIG_LOCK_TIMEOUT_MS`: how long a write waits for another process's lock on config.toml. */
  lockTimeoutMs: number;
}

/** What the agent loop takes from the environment. */
export interface EngineSettings {
  /** `SVC_CODE_RETRY_BASE_MS`: base delay of retried model requests. */
  retryBaseMs: number;
  /** `SVC_CODE_MODEL_IDLE_TIMEOUT_MS`: a model stream quiet this long times out (0: never). */
  modelIdleTimeoutMs: number;
  /** `SVC_CODE_RUNTIME_IDLE_MS`: an idle session's runtime is unloaded after this long (0: never). */
  runtimeIdleMs: number;
  /** `SVC_MCP_RECONNECT_BASE_MS`: the first delay of an MCP server's reconnects. */
  mcpReconnect: ReconnectPolicy;
  /** `SVC_CODE_WEB_FETCH_TIMEOUT_MS`: WebFetch's own fetch deadline. */
  webFetch: WebFetchLimits;
}

const WHOLE_OR_ZERO: EnvNumberRule = { min: 0 };

/** Reads `env` (the process environment at start, or one a caller built) into frozen settings. */
export function readSettings(env: NodeJS.ProcessEnv): Settings {
  const warnings: string[] = [];
  const num = (name: string, fallback: number, rule?: EnvNumberRule) => numberFromEnv(env, name, fallback, rule, (w) => warnings.push(w));
  const str = (name: string) => env[name]?.trim() || undefined;
  const list = (name: string) => (env[name] ?? '').split(',').map((s) => s.trim()).filter(Boolean);
  const settings: Settings = {
    home: path.resolve(env.SVC_CODE_HOME || path.join(os.homedir(), '.svc-code')),
    serverToken: env.SVC_CODE_SERVER_TOKEN || undefined,
    logLevel: logLevelFromEnv(env, (w) => warnings.push(w)),
    checkEvents: env.SVC_CODE_CHECK_EVENTS === '1',
    journalFsync: env.SVC_CODE_JOURNAL_FSYNC !== '0',
    journalUrl: str('SVC_CODE_JOURNAL_URL'),
    journalRetryMs: num('SVC_CODE_JOURNAL_RETRY_MS', DEFAULT_JOURNAL_RETRY_MS),
    nodeId: str('SVC_CODE_NODE_ID'),
    nodeUrl: str('SVC_CODE_NODE_URL'),
    followIntervalMs: num('SVC_CODE_FOLLOW_INTERVAL_MS', 1_000),
    leaseTtlMs: num('SVC_CODE_LEASE_TTL_MS', DEFAULT_LEASE_TTL_MS),
    reconcileIntervalMs: num('SVC_CODE_RECONCILE_INTERVAL_MS', 30_000),
    access: { allowedHosts: list('SVC_CODE_ALLOWED_HOSTS'), allowedOrigins: list('SVC_CODE_ALLOWED_ORIGINS') },
    config: {
      overrides: readEnvOverrides(env),
      changeWindowMs: num('SVC_CODE_CONFIG_EVENT_WINDOW_MS', CHANGE_WINDOW_MS),
      lockTimeoutMs: num('SVC_CODE_CONFIG_LOCK_TIMEOUT_MS', 10_000),
    },
    engine: {
      retryBaseMs: num('SVC_CODE_RETRY_BASE_MS', DEFAULT_RETRY_BASE_MS, WHOLE_OR_ZERO),
      modelIdleTimeoutMs: num('SVC_CODE_MODEL_IDLE_TIMEOUT_MS', DEFAULT_MODEL_IDLE_TIMEOUT_MS, WHOLE_OR_ZERO),
      runtimeIdleMs: num('SVC_CODE_RUNTIME_IDLE_MS', DEFAULT_RUNTIME_IDLE_MS, WHOLE_OR_ZERO),
      mcpReconnect: reconnectPolicy(num('SVC_MCP_RECONNECT_BASE_MS', DEFAULT_RECONNECT.baseMs, WHOLE_OR_ZERO)),
      webFetch: { ...DEFAULT_WEB_FETCH_LIMITS, timeoutMs: num('SVC_CODE_WEB_FETCH_TIMEOUT_MS', DEFAULT_WEB_FETCH_LIMITS.timeoutMs) },
    },
    oauth: { host: str('SVC_CODE_OAUTH_HOST'), pollUnitMs: env.SVC_CODE_OAUTH_POLL_UNIT_MS },
    pluginsAllowLoopbackHttp: env.SVC_CODE_PLUGINS_ALLOW_LOOPBACK_HTTP === '1',
    capabilityStepDelayMs: num('SVC_CODE_CAPABILITY_STEP_DELAY_MS', 0, WHOLE_OR_ZERO),
    search: {
      budgets: {
        candidateCap: num('SVC_CODE_SEARCH_CANDIDATE_CAP', DEFAULT_BUDGETS.candidateCap, ANY_POSITIVE),
        postingsBudget: num('SVC_CODE_SEARCH_POSTINGS_BUDGET', DEFAULT_BUDGETS.postingsBudget, ANY_POSITIVE),
        deadlineMs: num('SVC_CODE_SEARCH_DEADLINE_MS', DEFAULT_BUDGETS.deadlineMs, ANY_POSITIVE),
      },
      workerYoungMb: num('SVC_CODE_SEARCH_WORKER_YOUNG_MB', DEFAULT_WORKER_YOUNG_MB, ANY_POSITIVE),
    },
    uploads: {
      maxBytes: num('SVC_CODE_UPLOAD_MAX_BYTES', DEFAULT_MAX_UPLOAD_BYTES),
      sweepIntervalMs: num('SVC_CODE_UPLOAD_SWEEP_INTERVAL_MS', DEFAULT_SWEEP_INTERVAL_MS),
    },
    ws: { maxBufferedBytes: num('SVC_CODE_WS_MAX_BUFFERED_BYTES', 8 * 1024 * 1024), coalesceMs: num('SVC_CODE_WS_COALESCE_MS', DEFAULT_COALESCE_MS, WHOLE_OR_ZERO) },
    live: { turns: num('SVC_CODE_LIVE_TURNS', LIVE_TURNS), retrimMs: num('SVC_CODE_LIVE_RETRIM_MS', RETRIM_IDLE_MS, WHOLE_OR_ZERO) },
    grepTimeoutMs: num('SVC_CODE_GREP_TIMEOUT_MS', DEFAULT_GREP_TIMEOUT_MS),
    modelDirectory: { url: env.SVC_CODE_MODEL_DIRECTORY_URL || DEFAULT_DIRECTORY_URL, snapshotPath: env.SVC_CODE_MODEL_DIRECTORY_SNAPSHOT || SNAPSHOT_PATH },
    tracePrompt: env.SVC_CODE_TRACE_PROMPT || undefined,
    warnings,
  };
  return deepFreeze(settings);
}

const LOG_LEVELS = new Set(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']);

/** `SVC_CODE_LOG_LEVEL`: empty or blank is unset; a name pino does not know keeps the default and says so. */
function logLevelFromEnv(env: NodeJS.ProcessEnv, warn: (message: string) => void): string | undefined {
  const raw = env.SVC_CODE_LOG_LEVEL?.trim();
  if (!raw) return undefined;
  if (LOG_LEVELS.has(raw)) return raw;
  warn(`SVC_CODE_LOG_LEVEL=${JSON.stringify(raw)} is not one of ${[...LOG_LEVELS].join(', ')}; using the default`);
  return undefined;
}

/** The settings with some values replaced (tests, `svc-code replay`); the result is frozen too. */
export function withSettings(base: Settings, patch: (draft: Settings) => void): Settings {
  const draft = structuredClone(base) as Settings;
  patch(draft);
  return deepFreeze(draft);
}

/**
 * Freezes the settings and what they hold, but for Part B's overrides: the config service owns those, and its
 * resolution copies parts of them into the configuration it hands out (a frozen table there would be a trap).
 */
function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const [k, v] of Object.entries(value)) if (k !== 'overrides') deepFreeze(v);
  }
  return value;
}
