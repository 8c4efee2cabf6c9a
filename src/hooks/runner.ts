import { spawn } from 'node:child_process';
import type { ConfigService } from '../config/service.ts';
import type { EventJournal } from '../events/journal.ts';
import type { JournalEvent } from '../../journal/types.ts';
import { globMatches } from '../lib/glob.ts';
import type { Logger } from '../lib/logger.ts';
import { enabledPlugins } from '../plugins/layout.ts';
import { readPluginHooks } from '../plugins/load.ts';
import { parseHooks, type HookEvent, type HookSpec } from './types.ts';
import { known } from '../../protocol/events/known.ts';
import { childEnv } from '../lib/child-env.ts';

/** Largest stdout / stderr kept of one hook run. */
const OUTPUT_MAX = 64 * 1024;
/** Longest reason recorded and handed to the model. */
const REASON_MAX = 4000;

export type HookDecision = 'allow' | 'deny' | 'ask' | 'block';

export interface HookRun {
  hook: HookSpec;
  outcome: 'ok' | 'blocked' | 'error' | 'timed_out';
  decision?: HookDecision;
  reason?: string;
  exitCode: number | null;
  durationMs: number;
}

/** Where a hook fires: its session, agent, turn and (tool events) the call. */
export interface HookSite {
  sessionId: string;
  agentId: string;
  turnId?: string;
  cwd: string;
  toolName?: string;
  toolCallId?: string;
}

export interface HookRunnerDeps {
  home: string;
  config: ConfigService;
  journal: EventJournal;
  log: Logger;
}

/** A matcher: `|`-separated globs on the tool name (`Bash`, `Edit|Write`, `mcp__github__*`); absent or `*` matches all. */
export function matcherMatches(matcher: string | undefined, toolName: string | undefined): boolean {
  if (matcher === undefined || matcher === '' || matcher === '*') return true;
  if (toolName === undefined) return false;
  return matcher.split('|').some((g) => globMatches(g.trim(), toolName));
}

/**
 * Runs `[[hooks]]` and enabled plugins' hooks (docs/hooks.md): one child per matching hook, in order,
 * the event as JSON on stdin, a decision read from stdout as JSON (or exit code 2 = block, stderr the
 * reason). A hook that times out is killed; one that crashes or answers garbage is recorded and
 * ignored: a hook never wedges a turn. Every run is journaled as `hook.result`.
 */
export class HookRunner {
  /** Every hook, read once per config and plugin set (not per tool call): the config's `hooks` it was built from. */
  private cached?: { hooksConfig: unknown; specs: Promise<HookSpec[]> };

  constructor(private readonly deps: HookRunnerDeps) {}

  /** `event.plugin.changed`: a plugin was installed, enabled, disabled or removed; its hooks are read again. */
  readonly onCommitted = (events: JournalEvent[]): void => {
    if (events.some((e) => known(e).type === 'event.plugin.changed')) this.cached = undefined;
  };

  /** The hooks of one event: the config's first, then each enabled plugin's, in plugin id order. */
  async hooksFor(event: HookEvent): Promise<HookSpec[]> {
    return (await this.allHooks()).filter((h) => h.event === event);
  }

  private allHooks(): Promise<HookSpec[]> {
    const hooksConfig = this.deps.config.current().hooks;
    if (!this.cached || this.cached.hooksConfig !== hooksConfig) {
      const specs = this.readHooks(hooksConfig);
      const entry = { hooksConfig, specs };
      this.cached = entry;
      // A failed read is not kept: the next call reads again.
      specs.catch(() => {
        if (this.cached === entry) this.cached = undefined;
      });
    }
    return this.cached.specs;
  }

  private async readHooks(hooksConfig: unknown): Promise<HookSpec[]> {
    const all = [...parseHooks(hooksConfig, 'config').hooks];
    for (const p of enabledPlugins(this.deps.home)) all.push(...(await readPluginHooks(p.dir, p.id)).hooks);
    return all;
  }

  /** Runs the matching hooks of `event` in order; stops at the first that blocks or denies. */
  async run(event: HookEvent, site: HookSite, input: Record<string, unknown>, signal?: AbortSignal): Promise<HookRun[]> {
    const hooks = (await this.hooksFor(event)).filter((h) => !isToolEvent(event) || matcherMatches(h.matcher, site.toolName));
    const runs: HookRun[] = [];
    for (const hook of hooks) {
      if (signal?.aborted) break;
      const payload = { hook_event_name: event, session_id: site.sessionId, agent_id: site.agentId, cwd: site.cwd, ...(site.turnId ? { turn_id: site.turnId } : {}), ...input };
      const r = await this.runOne(hook, payload, site, signal);
      runs.push(r);
      await this.record(event, site, r);
      if (r.decision === 'deny' || r.decision === 'block') break;
    }
    return runs;
  }

  private runOne(hook: HookSpec, payload: unknown, site: HookSite, signal?: AbortSignal): Promise<HookRun> {
    const started = performance.now();
    return new Promise<HookRun>((resolve) => {
      let settled = false;
      let timedOut = false;
      const out: Buffer[] = [];
      const err: Buffer[] = [];
      let outLen = 0;
      let errLen = 0;
      const done = (r: Omit<HookRun, 'hook' | 'durationMs'>) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        resolve({ hook, durationMs: Math.round(performance.now() - started), ...r });
      };
      const child = spawn(process.platform === 'win32' ? 'cmd.exe' : '/bin/sh', process.platform === 'win32' ? ['/d', '/s', '/c', hook.command] : ['-c', hook.command], {
        cwd: hook.cwd ?? site.cwd, detached: process.platform !== 'win32', stdio: ['pipe', 'pipe', 'pipe'],
        env: childEnv({ SVC_CODE_HOOK_EVENT: hook.event, SVC_CODE_SESSION_ID: site.sessionId, SVC_CODE_PROJECT_DIR: site.cwd, ...(hook.cwd ? { SVC_CODE_PLUGIN_ROOT: hook.cwd } : {}) }),
      });
      const kill = () => {
        try {
          if (child.pid && process.platform !== 'win32') process.kill(-child.pid, 'SIGKILL');
          else child.kill('SIGKILL');
        } catch {
          /* already gone */
        }
      };
      const timer = setTimeout(() => {
        timedOut = true;
        kill();
        done({ outcome: 'timed_out', exitCode: null, reason: `timed out after ${hook.timeout}s` });
      }, hook.timeout * 1000);
      const onAbort = () => {
        kill();
        done({ outcome: 'error', exitCode: null, reason: 'the turn was cancelled' });
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      child.stdout.on('data', (c: Buffer) => {
        if (outLen < OUTPUT_MAX) out.push(c);
        outLen += c.length;
      });
      child.stderr.on('data', (c: Buffer) => {
        if (errLen < OUTPUT_MAX) err.push(c);
        errLen += c.length;
      });
      child.on('error', (e) => done({ outcome: 'error', exitCode: null, reason: e.message }));
      child.on('close', (code) => {
        if (timedOut) return;
        const stdout = Buffer.concat(out).toString('utf8').slice(0, OUTPUT_MAX);
        const stderr = Buffer.concat(err).toString('utf8').slice(0, OUTPUT_MAX).trim();
        if (code === 2) return done({ outcome: 'blocked', decision: blockOf(hook.event), exitCode: 2, reason: cut(stderr || 'blocked by a hook') });
        if (code !== 0) return done({ outcome: 'error', exitCode: code, ...(stderr ? { reason: cut(stderr) } : {}) });
        const parsed = parseDecision(hook.event, stdout);
        if (parsed === 'garbage') return done({ outcome: 'error', exitCode: 0, reason: 'stdout is not a JSON decision' });
        done({ outcome: parsed.decision === 'deny' || parsed.decision === 'block' ? 'blocked' : 'ok', exitCode: 0, ...parsed });
      });
      // A hook that does not read its stdin must not fail the run.
      child.stdin.on('error', () => undefined);
      child.stdin.end(JSON.stringify(payload));
    });
  }

  private async record(event: HookEvent, site: HookSite, r: HookRun): Promise<void> {
    try {
      await this.deps.journal.append([{
        stream: site.sessionId, type: 'hook.result',
        payload: {
          agent_id: site.agentId, ...(site.turnId ? { turn_id: site.turnId } : {}), hook_event: event, ...(r.hook.matcher ? { matcher: r.hook.matcher } : {}),
          command: r.hook.command.slice(0, 200), origin: r.hook.origin, ...(site.toolName ? { tool_name: site.toolName } : {}),
          ...(site.toolCallId ? { tool_call_id: site.toolCallId } : {}), outcome: r.outcome, ...(r.decision ? { decision: r.decision } : {}),
          ...(r.reason ? { reason: r.reason } : {}), exit_code: r.exitCode, duration_ms: r.durationMs,
        },
      }]);
    } catch (err) {
      this.deps.log.warn({ err: (err as Error).message, session_id: site.sessionId }, 'could not record a hook run');
    }
  }
}

const isToolEvent = (e: HookEvent) => e === 'PreToolUse' || e === 'PostToolUse';
const cut = (s: string) => (s.length > REASON_MAX ? `${s.slice(0, REASON_MAX)}...` : s);

/** What exit code 2 means per event: a denied call before a tool, a block elsewhere. */
function blockOf(event: HookEvent): HookDecision {
  return event === 'PreToolUse' ? 'deny' : 'block';
}

/** stdout: empty (no decision) or a JSON object `{decision?, reason?}`; decisions an event does not take are ignored. */
function parseDecision(event: HookEvent, stdout: string): { decision?: HookDecision; reason?: string } | 'garbage' {
  const text = stdout.trim();
  if (!text) return {};
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return 'garbage';
  }
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return 'garbage';
  const o = raw as Record<string, unknown>;
  const reason = typeof o.reason === 'string' && o.reason ? { reason: cut(o.reason) } : {};
  const allowed: HookDecision[] = event === 'PreToolUse' ? ['allow', 'deny', 'ask'] : event === 'Stop' || event === 'SessionStart' ? [] : ['block'];
  const d = o.decision;
  return allowed.includes(d as HookDecision) ? { decision: d as HookDecision, ...reason } : reason;
}

/** The PreToolUse verdict of a list of runs: the first deny wins, else ask, else allow, else none. */
export function preToolVerdict(runs: HookRun[]): { decision: 'allow' | 'deny' | 'ask'; reason?: string } | undefined {
  const pick = (d: HookDecision) => runs.find((r) => r.decision === d);
  const r = pick('deny') ?? pick('ask') ?? pick('allow');
  return r ? { decision: r.decision as 'allow' | 'deny' | 'ask', ...(r.reason ? { reason: r.reason } : {}) } : undefined;
}
