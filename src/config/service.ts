import { EventEmitter } from 'node:events';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { parse } from 'smol-toml';
import type { Logger } from '../app/logger.ts';

/**
 * The global configuration (`<home>/config.toml`). STUB: the config issue work
 * replaces this with the full GET/POST/env/watch implementation.
 */
export class ConfigService extends EventEmitter {
  private raw: Record<string, unknown> = {};
  constructor(readonly file: string, private readonly log: Logger) {
    super();
  }

  static async load(home: string, log: Logger): Promise<ConfigService> {
    const svc = new ConfigService(path.join(home, 'config.toml'), log);
    try {
      svc.raw = parse(await readFile(svc.file, 'utf8')) as Record<string, unknown>;
    } catch {
      svc.raw = {};
    }
    return svc;
  }

  /** Experimental flag id -> enabled. */
  experimentalFlags(): Record<string, boolean> {
    const exp = (this.raw.experimental ?? {}) as Record<string, unknown>;
    return Object.fromEntries(Object.entries(exp).map(([k, v]) => [k, v === true]));
  }

  defaultPermissionMode(): string {
    return typeof this.raw.default_permission_mode === 'string' ? this.raw.default_permission_mode : 'manual';
  }

  defaultModel(): string | undefined {
    return typeof this.raw.default_model === 'string' ? this.raw.default_model : undefined;
  }

  defaultPlanMode(): boolean {
    return this.raw.default_plan_mode === true;
  }

  async close(): Promise<void> {}
}
