import { rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { GLOBAL_STREAM } from '../../journal/keys.ts';
import { Codes } from '../../protocol/codes.ts';
import { ApiError } from '../../protocol/errors.ts';
import type { CapabilityStatus } from '../../protocol/schemas/capabilities.ts';
import type { Logger } from '../lib/logger.ts';
import type { EventJournal } from '../events/journal.ts';
import { platform } from './checks.ts';
import type { CapabilityDef } from './defs.ts';

export interface CapabilityDeps {
  home: string;
  /** The registered capabilities (CAPABILITIES; tests pass their own). */
  defs: readonly CapabilityDef[];
  journal: EventJournal;
  log: Logger;
  /** A pause before each install step, ms (tests watch a running install; SVC_CODE_CAPABILITY_STEP_DELAY_MS); default 0. */
  stepDelayMs?: number;
}

type Install = CapabilityStatus['install'];

/**
 * Capabilities (docs/plugins.md "Capabilities"): each status is computed from real checks of this
 * machine on every read; `:install` runs the steps the daemon can do itself in the background
 * (one at a time per capability), reporting the step and percent, and `event.capability.changed`
 * at its start, at each step and at its end. Steps that need the user stay `missing` with a detail.
 */
export class CapabilityService {
  private readonly installs = new Map<string, Install>();

  constructor(private readonly deps: CapabilityDeps) {}

  private dir(id: string) {
    return path.join(this.deps.home, 'capabilities', id);
  }

  list(): CapabilityStatus[] {
    return this.deps.defs.map((c) => this.status(c));
  }

  get(id: string): CapabilityStatus {
    return this.status(this.def(id));
  }

  private def(id: string): CapabilityDef {
    const c = this.deps.defs.find((x) => x.id === id);
    if (!c) throw new ApiError(Codes.CAPABILITY_NOT_FOUND, `capability not found: ${id}`, { details: { capability_id: id } });
    return c;
  }

  private status(c: CapabilityDef): CapabilityStatus {
    const install = this.installs.get(c.id) ?? { running: false };
    const base = { id: c.id, displayName: c.displayName, description: c.description, install };
    if (unsupported(c)) return { ...base, supported: false, state: 'unsupported', steps: [] };
    const steps = c.steps.map((s) => {
      let r: { ok: boolean; detail?: string };
      try {
        r = s.check(this.dir(c.id));
      } catch (err) {
        return { id: s.id, state: 'failed' as const, detail: (err as Error).message, ...(s.optional ? { optional: true } : {}) };
      }
      return { id: s.id, state: r.ok ? 'ok' as const : 'missing' as const, ...(r.detail ? { detail: r.detail } : {}), ...(s.optional ? { optional: true } : {}) };
    });
    const required = steps.filter((s) => !s.optional);
    const runtime = steps.find((s) => s.id === 'runtime');
    const state = required.every((s) => s.state === 'ok') ? 'ready' : runtime?.state === 'ok' ? 'partial' : 'not_installed';
    return { ...base, supported: true, state, ...(runtime?.state === 'ok' ? { version: c.version } : {}), steps };
  }

  /** POST :install: 40925 unsupported (platform, or no tool backs it), 40924 while one runs; answers the status with `install.running` true. */
  async install(id: string): Promise<CapabilityStatus> {
    const c = this.def(id);
    const why = unsupported(c);
    if (why) throw new ApiError(Codes.CAPABILITY_UNSUPPORTED, `capability ${id} is not supported: ${why}`, { details: { capability_id: id, platform: platform() } });
    if (this.installs.get(id)?.running) throw new ApiError(Codes.CAPABILITY_INSTALL_RUNNING, `an install of ${id} is already running`, { details: { capability_id: id } });
    await this.set(c, { running: true, step: c.steps[0]?.id ?? 'runtime', percent: 0 });
    void this.run(c).catch((err) => this.deps.log.error({ err: (err as Error).message, capability: id }, 'capability install crashed'));
    return this.status(c);
  }

  private async run(c: CapabilityDef): Promise<void> {
    const delay = this.deps.stepDelayMs ?? 0;
    const dir = this.dir(c.id);
    try {
      for (const [i, s] of c.steps.entries()) {
        await this.set(c, { running: true, step: s.id, percent: Math.round((i / c.steps.length) * 100) });
        if (delay) await new Promise((r) => setTimeout(r, delay));
        if (!s.install || s.check(dir).ok) continue;
        // Staged next to the target and moved in with one rename: a failed step leaves nothing half-written.
        const staging = `${dir}.staging`;
        await rm(staging, { recursive: true, force: true });
        try {
          await s.install(staging);
          await rm(dir, { recursive: true, force: true });
          await rename(staging, dir);
        } finally {
          await rm(staging, { recursive: true, force: true });
        }
      }
      const after = this.status(c);
      const left = after.steps.filter((s) => s.state !== 'ok' && !s.optional).map((s) => s.id);
      await this.set(c, { running: false, percent: 100, ...(left.length ? { note: `needs you: ${left.join(', ')} (see each step's detail)` } : {}) });
    } catch (err) {
      await this.set(c, { running: false, error: (err as Error).message });
    }
  }

  private async set(c: CapabilityDef, install: Install): Promise<void> {
    this.installs.set(c.id, install);
    const s = this.status(c);
    await this.deps.journal.append([{ stream: GLOBAL_STREAM, type: 'event.capability.changed', payload: { capability_id: c.id, install, state: s.state } }]);
  }
}

/** Why a capability is unsupported here (its platform is not listed, or no daemon tool backs it), or undefined. */
function unsupported(c: CapabilityDef): string | undefined {
  if (!c.platforms.includes(platform())) return `not available on ${platform()}`;
  if (!c.tools.length) return 'no tool of this daemon backs it yet';
  return undefined;
}
