import { EventEmitter } from 'node:events';
import path from 'node:path';
import type { EventJournal } from '../events/journal.ts';
import type { PayloadOf } from '../../protocol/events/registry.ts';
import { GLOBAL_STREAM } from '../../journal/keys.ts';
import type { Logger } from '../lib/logger.ts';
import { Codes } from '../../protocol/codes.ts';
import { ApiError, validationError } from '../../protocol/errors.ts';
import type { ConfigPatch } from '../../protocol/schemas/config.ts';
import type { PermissionModeName } from '../../protocol/schemas/enums.ts';
import { ChangeBatcher } from './changes.ts';
import { CHANGE_WINDOW_MS, FIRST_RUN_DOCUMENT } from './defaults.ts';
import { NO_ENV_OVERRIDES, type EnvOverrides } from './env.ts';
import { stringify } from 'smol-toml';
import { writeFileAtomic } from '../lib/fs-atomic.ts';
import { LockTimeoutError, withFileLock } from '../lib/file-lock.ts';
import { createFileOnce, readConfigFile, type FileRead } from './file.ts';
import { applyPatch, changedFields, checkPatched, cloneDoc, normalizePatch } from './patch.ts';
import type { Doc } from './read.ts';
import { resolveConfig, type ResolvedConfig } from './resolve.ts';
import { patchToml } from './toml-edit.ts';
import { sameData } from './toml-value.ts';
import { ensureTuiFile } from './tui.ts';
import { toConfigView } from './view.ts';

export interface ConfigServiceOptions {
  /** Part B's environment overrides, read once at start (src/app/settings.ts); default none. Never written back. */
  overrides?: EnvOverrides;
  /** Window merging changes into one `event.config.changed` (default CHANGE_WINDOW_MS; env SVC_CODE_CONFIG_EVENT_WINDOW_MS). */
  changeWindowMs?: number;
  /** How long a write waits for another process's lock on config.toml (default 10 s; env SVC_CODE_CONFIG_LOCK_TIMEOUT_MS). */
  lockTimeoutMs?: number;
}

/** A write refused: 40001 naming config.toml, with the file (and the line of a parse error) in `details`. */
function writeRefused(file: string, why: string, where: { line?: number; column?: number } = {}): ApiError {
  const message = `cannot write config.toml: ${why}`;
  return new ApiError(Codes.VALIDATION, message, { details: [{ field: 'config.toml', message, file, ...where }] });
}

/** Largest config.toml the daemon writes (a patch adding more is 40001); hand edits are not capped. */
export const CONFIG_FILE_MAX_BYTES = 1024 * 1024;

const camel = (s: string) => s.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());

/**
 * The global configuration (`<home>/config.toml`): the raw document (unknown
 * keys kept on every write), its resolution with defaults and env overrides,
 * merge-patch writes that edit the file in place, `reload()` (for the watchers, src/config/watchers.ts)
 * and `event.config.changed` (also emitted here as `changed` with the fields).
 */
export class ConfigService extends EventEmitter {
  private raw: Doc = {};
  /** Last text read or written: the watcher ignores a file equal to it (our own writes). */
  private text?: string;
  private fileWarning?: string;
  private resolveWarnings: string[] = [];
  private resolved!: ResolvedConfig;
  private lock: Promise<unknown> = Promise.resolve();
  private closed = false;
  private readonly env: EnvOverrides;
  private readonly batcher: ChangeBatcher;
  private readonly log: Logger;
  private readonly lockTimeoutMs: number;
  /** `event.config.changed` goes to the journal's global stream. */
  private readonly journal: EventJournal;

  constructor(readonly file: string, deps: { journal: EventJournal; log: Logger }, opts: ConfigServiceOptions = {}) {
    super();
    this.log = deps.log;
    this.journal = deps.journal;
    this.env = opts.overrides ?? NO_ENV_OVERRIDES;
    this.batcher = new ChangeBatcher(opts.changeWindowMs ?? CHANGE_WINDOW_MS, (fields) => this.publish(fields));
    this.lockTimeoutMs = opts.lockTimeoutMs ?? 10_000;
  }

  static async load(home: string, deps: { journal: EventJournal; log: Logger }, opts?: ConfigServiceOptions): Promise<ConfigService> {
    const svc = new ConfigService(path.join(home, 'config.toml'), deps, opts);
    await svc.init();
    await ensureTuiFile(home, deps.log);
    return svc;
  }

  private async init(): Promise<void> {
    let read = await readConfigFile(this.file);
    // Created here unless another daemon (or the user) wrote it first: then that file is read.
    if (read.kind === 'missing' && !(await this.createFirstRun())) read = await readConfigFile(this.file);
    if (read.kind === 'ok') {
      this.raw = read.doc;
      this.text = read.text;
    } else if (read.kind === 'invalid') {
      this.markBroken(read.message, read.text);
    }
    this.recompute();
    for (const w of this.warnings()) this.log.warn(w);
  }

  /** Writes the first-run document; false when the file appeared meanwhile. */
  private async createFirstRun(): Promise<boolean> {
    const text = stringify(FIRST_RUN_DOCUMENT);
    try {
      if (!(await createFileOnce(this.file, text))) return false;
      this.raw = cloneDoc(FIRST_RUN_DOCUMENT);
      this.text = text;
    } catch (err) {
      this.raw = cloneDoc(FIRST_RUN_DOCUMENT);
      this.log.warn({ err: (err as Error).message }, 'cannot create config.toml; running with defaults');
    }
    return true;
  }

  private markBroken(message: string, text?: string): void {
    this.text = text;
    this.fileWarning = `config.toml is malformed or unreadable (${message}); using the last good configuration (defaults at start) until it is fixed by hand; writes are refused meanwhile`;
    this.log.error(this.fileWarning);
  }

  private recompute(): void {
    const { config, warnings } = resolveConfig(this.raw, this.env);
    this.resolved = config;
    this.resolveWarnings = warnings;
  }

  /** Startup and reload problems: malformed file, deprecated keys, invalid env values. */
  warnings(): string[] {
    return [...(this.fileWarning ? [this.fileWarning] : []), ...this.env.warnings, ...this.resolveWarnings];
  }

  /** The effective configuration. Holds secrets: for the engine and providers, never for the wire. */
  current(): ResolvedConfig {
    return this.resolved;
  }

  /** A copy of the raw parsed document (unredacted). */
  rawDocument(): Doc {
    return cloneDoc(this.raw);
  }

  /** GET /api/v1/config data. */
  view(): Doc {
    return toConfigView(this.resolved, this.raw);
  }

  /** Experimental flag id -> enabled. */
  experimentalFlags(): Record<string, boolean> {
    return { ...this.resolved.experimental };
  }

  defaultPermissionMode(): PermissionModeName {
    return this.resolved.default_permission_mode;
  }

  defaultModel(): string | undefined {
    return this.resolved.default_model;
  }

  defaultPlanMode(): boolean {
    return this.resolved.default_plan_mode;
  }

  /** POST /api/v1/config: merge-patch, validated, written atomically; resolves to the new view. */
  patch(body: ConfigPatch): Promise<Doc> {
    const p = normalizePatch(body);
    return this.mutate((doc) => {
      const next = applyPatch(doc, p);
      const issues = checkPatched(next, p);
      if (issues.length) throw validationError(issues);
      return next;
    }, Object.keys(p).map(camel));
  }

  /**
   * Server-side writes (a POST, a provider added, an OAuth login or refresh): under the lock
   * shared with other daemons on the home, the file is read again, `fn` maps its document to
   * the next one, and only what changed is written back (comments, order and unknown keys
   * kept). A file that does not parse is never overwritten: the write is refused (40001 with
   * the file and line) and the last good configuration stays in force.
   */
  mutate(fn: (doc: Doc) => Doc, touched: string[] = []): Promise<Doc> {
    return this.exclusive(() => this.locked(async () => {
      const read = await readConfigFile(this.file);
      if (read.kind === 'invalid') throw this.refuse(read);
      // A file removed since the daemon read it is written back from what the daemon holds.
      const base = read.kind === 'ok' ? read.doc : cloneDoc(this.raw);
      const next = fn(cloneDoc(base));
      const before = this.view();
      if (read.kind === 'ok' && sameData(base, next)) {
        this.adopt(read.doc, read.text);
      } else {
        const text = this.encode(read.kind === 'ok' ? read.text : '', read.kind === 'ok' ? base : {}, next);
        try {
          await writeFileAtomic(this.file, text, 0o600, { fsync: true });
        } catch (err) {
          throw writeRefused(this.file, (err as Error).message);
        }
        this.adopt(next, text);
      }
      const after = this.view();
      this.announce([...new Set([...changedFields(before, after), ...touched])]);
      return after;
    }));
  }

  private adopt(doc: Doc, text: string): void {
    this.raw = doc;
    this.text = text;
    this.fileWarning = undefined;
    this.recompute();
  }

  private refuse(read: Extract<FileRead, { kind: 'invalid' }>): ApiError {
    if (read.text === undefined || read.text !== this.text) this.markBroken(read.message, read.text);
    const where = read.line ? { line: read.line, column: read.column } : {};
    return writeRefused(this.file, `${this.file} is not valid TOML: ${read.message}; fix it by hand (the daemon keeps its last good configuration and never overwrites a broken file)`, where);
  }

  /** `fn` holding `<home>/config.toml.lock`, so two daemons on one home never write over each other's change. */
  private async locked<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await withFileLock(`${this.file}.lock`, fn, { timeoutMs: this.lockTimeoutMs });
    } catch (err) {
      if (err instanceof LockTimeoutError) throw writeRefused(this.file, err.message);
      throw err;
    }
  }

  /** The file's text edited in place to hold `next` (docs: src/config/toml-edit.ts), within the size bound. */
  private encode(text: string, base: Doc, next: Doc): string {
    let out;
    try {
      out = patchToml(text, base, next);
    } catch (err) {
      const message = `cannot encode config as TOML: ${(err as Error).message}`;
      throw new ApiError(Codes.VALIDATION, message, { details: [{ field: '(root)', message }] });
    }
    if (out.mode !== 'in-place') this.log.warn({ mode: out.mode, reason: out.reason }, `config.toml: ${out.mode === 'tables' ? 'changed top-level tables rewritten whole' : 'rewritten whole'}`);
    if (Buffer.byteLength(out.text, 'utf8') > CONFIG_FILE_MAX_BYTES) {
      const message = `config.toml would exceed ${CONFIG_FILE_MAX_BYTES} bytes`;
      throw new ApiError(Codes.VALIDATION, message, { details: [{ field: '(root)', message, limit: CONFIG_FILE_MAX_BYTES }] });
    }
    return out.text;
  }

  /** Re-reads config.toml after an external edit; a malformed edit keeps the last good configuration. */
  reload(): Promise<void> {
    return this.exclusive(async () => {
      if (this.closed) return;
      const read = await readConfigFile(this.file);
      if (read.kind === 'missing') return void this.log.warn('config.toml was removed; keeping the current configuration');
      if (read.kind === 'invalid') {
        if (read.text === undefined || read.text !== this.text) this.markBroken(read.message, read.text);
        return;
      }
      if (read.text === this.text) return;
      const before = this.view();
      this.adopt(read.doc, read.text);
      for (const w of this.resolveWarnings) this.log.warn(w);
      this.announce(changedFields(before, this.view()));
    });
  }

  private announce(fields: string[]): void {
    if (!fields.length) return;
    this.emit('changed', fields);
    this.batcher.add(fields);
  }

  private async publish(fields: string[]): Promise<void> {
    try {
      // The view is built and redacted as a plain document: its shape is checked against the schema in test runs (docs/events.md).
      const config = this.view() as PayloadOf<'event.config.changed'>['config'];
      await this.journal.append([{ stream: GLOBAL_STREAM, type: 'event.config.changed', payload: { changedFields: fields, config } }]);
    } catch (err) {
      this.log.error({ err: (err as Error).message }, 'cannot record event.config.changed');
    }
  }

  private exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.lock.then(fn, fn);
    this.lock = run.catch(() => undefined);
    return run;
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.lock;
    await this.batcher.close();
  }
}
