import { EventEmitter } from 'node:events';
import path from 'node:path';
import type { EventJournal } from '../events/journal.ts';
import type { PayloadOf } from '../../protocol/events/registry.ts';
import { GLOBAL_STREAM } from '../../journal/keys.ts';
import type { Logger } from '../app/logger.ts';
import { GlobalEvents } from '../../protocol/events/types.ts';
import { Codes } from '../../protocol/codes.ts';
import { ApiError, validationError } from '../../protocol/errors.ts';
import type { ConfigPatch } from '../../protocol/schemas/config.ts';
import type { PermissionModeName } from '../../protocol/schemas/enums.ts';
import { ChangeBatcher } from './changes.ts';
import { CHANGE_WINDOW_MS, FIRST_RUN_DOCUMENT } from './defaults.ts';
import { readEnvOverrides, type EnvOverrides } from './env.ts';
import { backupBrokenFile, readConfigFile, toToml, writeFileAtomic } from './file.ts';
import { applyPatch, changedFields, checkPatched, cloneDoc, normalizePatch } from './patch.ts';
import type { Doc } from './read.ts';
import { resolveConfig, type ResolvedConfig } from './resolve.ts';
import { toConfigView } from './view.ts';
import { FileWatcher } from './watch.ts';

export interface ConfigServiceOptions {
  /** Environment to read overrides from (default process.env); read once, never written back. */
  env?: NodeJS.ProcessEnv;
  /** Window merging changes into one `event.config.changed`. */
  changeWindowMs?: number;
}

/** Largest config.toml the daemon writes (a patch adding more is 40001); hand edits are not capped. */
export const CONFIG_FILE_MAX_BYTES = 1024 * 1024;

const camel = (s: string) => s.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());

/**
 * The global configuration (`<home>/config.toml`): the raw document (unknown
 * keys kept on every write), its resolution with defaults and env overrides,
 * atomic merge-patch writes, the optional file watcher and `event.config.changed`.
 */
export class ConfigService extends EventEmitter {
  private raw: Doc = {};
  /** Last text read or written: the watcher ignores a file equal to it (our own writes). */
  private text?: string;
  /** The file on disk is unreadable or malformed; a POST backs it up before replacing it. */
  private broken = false;
  private fileWarning?: string;
  private resolveWarnings: string[] = [];
  private resolved!: ResolvedConfig;
  private lock: Promise<unknown> = Promise.resolve();
  private closed = false;
  private readonly env: EnvOverrides;
  private readonly batcher: ChangeBatcher;
  private readonly watcher: FileWatcher;
  private readonly log: Logger;
  /** `event.config.changed` goes to the journal's global stream. */
  private readonly journal: EventJournal;

  constructor(readonly file: string, deps: { journal: EventJournal; log: Logger }, opts: ConfigServiceOptions = {}) {
    super();
    this.log = deps.log;
    this.journal = deps.journal;
    const env = opts.env ?? process.env;
    this.env = readEnvOverrides(env);
    const window = opts.changeWindowMs ?? (Number(env.SVC_CODE_CONFIG_EVENT_WINDOW_MS) || CHANGE_WINDOW_MS);
    this.batcher = new ChangeBatcher(window, (fields) => this.publish(fields));
    this.watcher = new FileWatcher(file, () => void this.reload().catch((err) => deps.log.error({ err }, 'config reload failed')), deps.log);
  }

  static async load(home: string, deps: { journal: EventJournal; log: Logger }, opts?: ConfigServiceOptions): Promise<ConfigService> {
    const svc = new ConfigService(path.join(home, 'config.toml'), deps, opts);
    await svc.init();
    return svc;
  }

  private async init(): Promise<void> {
    const read = await readConfigFile(this.file);
    if (read.kind === 'ok') {
      this.raw = read.doc;
      this.text = read.text;
    } else if (read.kind === 'missing') {
      await this.createFirstRun();
    } else {
      this.markBroken(read.message, read.text);
    }
    this.recompute();
    for (const w of this.warnings()) this.log.warn(w);
    this.syncWatcher();
  }

  private async createFirstRun(): Promise<void> {
    this.raw = cloneDoc(FIRST_RUN_DOCUMENT);
    const text = toToml(this.raw);
    try {
      await writeFileAtomic(this.file, text);
      this.text = text;
    } catch (err) {
      this.log.warn({ err: (err as Error).message }, 'cannot create config.toml; running with defaults');
    }
  }

  private markBroken(message: string, text?: string): void {
    this.broken = true;
    this.text = text;
    this.fileWarning = `config.toml is malformed or unreadable (${message}); using the last good configuration (defaults at start) until it is fixed or replaced by POST /api/v1/config`;
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
   * Server-side writes (a POST, a provider added, an OAuth refresh): `fn` maps the
   * raw document to the next one; the file is rewritten and the change announced.
   */
  mutate(fn: (doc: Doc) => Doc, touched: string[] = []): Promise<Doc> {
    return this.exclusive(async () => {
      const next = fn(cloneDoc(this.raw));
      if (!touched.length && JSON.stringify(next) === JSON.stringify(this.raw)) return this.view();
      const text = this.serialize(next);
      const before = this.view();
      if (this.broken) await backupBrokenFile(this.file);
      const previous = this.text;
      this.text = text;
      try {
        await writeFileAtomic(this.file, text);
      } catch (err) {
        this.text = previous;
        const message = `cannot write config.toml: ${(err as Error).message}`;
        throw new ApiError(Codes.VALIDATION, message, { details: [{ field: 'config.toml', message }] });
      }
      this.raw = next;
      this.broken = false;
      this.fileWarning = undefined;
      this.recompute();
      const after = this.view();
      this.announce([...new Set([...changedFields(before, after), ...touched])]);
      this.syncWatcher();
      return after;
    });
  }

  private serialize(doc: Doc): string {
    let text: string;
    try {
      text = toToml(doc);
    } catch (err) {
      const message = `cannot encode config as TOML: ${(err as Error).message}`;
      throw new ApiError(Codes.VALIDATION, message, { details: [{ field: '(root)', message }] });
    }
    if (Buffer.byteLength(text, 'utf8') > CONFIG_FILE_MAX_BYTES) {
      const message = `config.toml would exceed ${CONFIG_FILE_MAX_BYTES} bytes`;
      throw new ApiError(Codes.VALIDATION, message, { details: [{ field: '(root)', message, limit: CONFIG_FILE_MAX_BYTES }] });
    }
    return text;
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
      this.raw = read.doc;
      this.text = read.text;
      this.broken = false;
      this.fileWarning = undefined;
      this.recompute();
      for (const w of this.resolveWarnings) this.log.warn(w);
      this.announce(changedFields(before, this.view()));
      this.syncWatcher();
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
      const config = this.view() as PayloadOf<typeof GlobalEvents.configChanged>['config'];
      await this.journal.append([{ stream: GLOBAL_STREAM, type: GlobalEvents.configChanged, payload: { changedFields: fields, config } }]);
    } catch (err) {
      this.log.error({ err: (err as Error).message }, 'cannot record event.config.changed');
    }
  }

  private syncWatcher(): void {
    if (this.resolved.watch.enabled && !this.closed) this.watcher.start();
    else this.watcher.stop();
  }

  private exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.lock.then(fn, fn);
    this.lock = run.catch(() => undefined);
    return run;
  }

  async close(): Promise<void> {
    this.closed = true;
    this.watcher.stop();
    await this.lock;
    await this.batcher.close();
  }
}
