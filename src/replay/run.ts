import { cp, lstat, mkdir, mkdtemp, realpath, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { stringify } from 'smol-toml';
import type { Logger } from '../lib/logger.ts';
import { defaultServeOptions } from '../app/options.ts';
import { startServer, type ServerParts } from '../app/server.ts';
import { withSettings, type Settings } from '../app/settings.ts';
import { acceptPrompt, type PromptSource } from '../engine/prompt-intake.ts';
import { ClientCache } from '../engine/model-resolve.ts';
import type { JournalEvent } from '../../journal/types.ts';
import type { PromptInput } from '../../protocol/schemas/prompts.ts';
import { createSession } from '../sessions/commands.ts';
import { firstDivergence, normalize, type Divergence } from './compare.ts';
import { ReplayModels } from './model.ts';
import { readRecording, type Recording } from './record.ts';
import { RecordedTools } from './tools.ts';
import { drive } from './drive.ts';
import { known } from '../../protocol/events/known.ts';

export type ToolsMode = 'record' | 'live';

export interface ReplayOptions {
  zip: Uint8Array;
  tools: ToolsMode;
  /** `--tools live`: the directory copied as the scratch workspace (default: the recorded workspace root, when it exists). */
  workspace?: string;
  /** Keep the temp home (and its scratch workspace) for inspection. */
  keep?: boolean;
  /** Give up waiting when the replay appends nothing for this long (ms). */
  stallMs?: number;
  log: Logger;
  /** The environment's settings (src/app/settings.ts); the replay's daemon retries without backoff whatever they say. */
  settings: Settings;
}

export interface ReplayReport {
  session_id: string;
  tools: ToolsMode;
  /** The temp home, when kept (`--keep`). */
  home: string | null;
  workspace: { source: string | null; scratch: string };
  turns: { recorded: number; replayed: number };
  events: { recorded: number; replayed: number; compared: number };
  model_answers: { recorded: number; served: number };
  tool_answers_from_record: number;
  /** Why the replay stopped before the end: it gave up waiting (an approval or question that never came, a turn that never ended), or a prompt was refused. */
  stopped: string | null;
  divergence: Divergence | null;
}

/**
 * `svc-code replay`: runs the recorded session's turns again with the real engine in a fresh temp home, its
 * model answering from the record, and compares the new journal with the recorded one (docs/replay.md).
 */
export async function replaySession(opts: ReplayOptions): Promise<ReplayReport> {
  const rec = readRecording(opts.zip);
  const home = await mkdtemp(path.join(os.tmpdir(), 'svc-code-replay-'));
  try {
    const scratch = path.join(home, 'workspace');
    const source = opts.tools === 'live' ? await workspaceSource(opts.workspace ?? rec.manifest.workspace?.root ?? rec.session.cwd) : null;
    if (source) await cp(source, scratch, { recursive: true, verbatimSymlinks: true });
    await mkdir(scratch, { recursive: true });
    if (opts.tools === 'live') await rollBack(rec, scratch);
    else await restoreInstructions(rec, scratch);
    await writeFile(path.join(home, 'config.toml'), replayConfig(rec));

    const models = new ReplayModels(rec);
    const tools = opts.tools === 'record' ? new RecordedTools(rec.tools) : undefined;
    // The clock starts where the recording did (the system prompt's date), then runs at real speed.
    const origin = Date.parse(rec.session.created_at) || Date.now();
    const startedAt = performance.now();
    const clock = { now: () => new Date(origin + (performance.now() - startedAt)) };
    const server = await startServer({
      home, clock, log: opts.log, options: { ...defaultServeOptions(), host: '127.0.0.1', port: 0 },
      replay: { clients: new ClientCache(64, models.client), ...(tools ? { tools } : {}) },
      // Recorded retries are replayed without their backoff. A replay is a throwaway: its own temp home's LevelDB
      // journal even when SVC_CODE_JOURNAL_URL names a shared PostgreSQL one (docs/replay.md).
      settings: withSettings(opts.settings, (s) => {
        s.engine.retryBaseMs = 0;
        delete s.journalUrl;
      }),
    });
    let replayed: JournalEvent[] = [];
    let stopped: string | null = null;
    try {
      const s = server.parts;
      const created = await createSession(s, {
        metadata: { ...rec.session.metadata, cwd: scratch }, agent_config: rec.session.agent_config, ...(rec.session.title ? { title: rec.session.title } : {}),
      });
      const result = await drive(driverDeps(s, opts.tools === 'live'), created.id, rec, opts.stallMs ?? 30_000);
      replayed = result.events;
      stopped = result.stopped;
    } finally {
      await server.close();
    }
    const expected = normalize(rec.events, rec.session.cwd);
    const got = normalize(replayed, scratch);
    return {
      session_id: rec.manifest.session_id, tools: opts.tools, home: opts.keep ? home : null,
      workspace: { source, scratch },
      turns: { recorded: mainTurns(rec.events), replayed: mainTurns(replayed) },
      events: { recorded: rec.events.length, replayed: replayed.length, compared: expected.length },
      model_answers: { recorded: rec.answers.length, served: models.served },
      tool_answers_from_record: tools?.answered ?? 0,
      stopped,
      divergence: firstDivergence(expected, got),
    };
  } finally {
    if (!opts.keep) await rm(home, { recursive: true, force: true });
  }
}

function driverDeps(s: ServerParts, liveTools: boolean) {
  return {
    journal: s.journal, live: s.live, permissions: s.permissions, questions: s.questions, liveTools,
    prompt: (sid: string, body: PromptInput, source?: PromptSource) => acceptPrompt(s, sid, body, source),
  };
}

const mainTurns = (events: ReadonlyArray<{ type: string; payload: unknown }>) =>
  events.filter((e) => known(e).type === 'turn.ended' && (e.payload as { agent_id?: string }).agent_id === 'main').length;

async function workspaceSource(dir: string): Promise<string | null> {
  try {
    return (await stat(dir)).isDirectory() ? dir : null;
  } catch {
    return null;
  }
}

/**
 * The scratch copy is today's workspace; the files the session's Write and Edit calls changed are put back
 * as they were before its first change (`file.changed` keeps `before`, or that the file did not exist).
 */
async function rollBack(rec: Recording, scratch: string): Promise<void> {
  const seen = new Set<string>();
  const root = await realpath(scratch);
  for (const e of rec.events) {
    if (known(e).type !== 'file.changed') continue;
    const p = e.payload as { path: string; existed: boolean; before?: string; oversize?: boolean };
    if (seen.has(p.path)) continue;
    seen.add(p.path);
    const file = path.resolve(scratch, p.path);
    // Only inside the scratch copy (a change in an additional directory is left alone).
    if (path.isAbsolute(p.path) || !file.startsWith(scratch + path.sep) || p.oversize) continue;
    // The copy keeps the workspace's symlinks: a file whose directory (or its deepest existing ancestor) resolves
    // outside the copy is left alone (no removal, no directory created, no write through it), and a symlink in
    // the file's place is removed or replaced, never written through.
    if (!insideCopy(await realAncestor(path.dirname(file)), root)) continue;
    if (!p.existed) await rm(file, { force: true });
    else if (typeof p.before === 'string') {
      await mkdir(path.dirname(file), { recursive: true });
      if ((await lstat(file).catch(() => null))?.isSymbolicLink()) await rm(file);
      await writeFile(file, p.before);
    }
  }
}

const insideCopy = (real: string, root: string) => real === root || real.startsWith(root + path.sep);

/** The real path of `dir`, or of its deepest existing ancestor. */
async function realAncestor(dir: string): Promise<string> {
  for (;;) {
    const real = await realpath(dir).catch(() => null);
    const parent = path.dirname(dir);
    if (real !== null || parent === dir) return real ?? dir;
    dir = parent;
  }
}

const INSTRUCTIONS = '\n\nProject instructions (AGENTS.md):\n';

/** `--tools record`: the empty workspace gets the AGENTS.md the recorded system prompt quoted, so that prompt is the same. */
async function restoreInstructions(rec: Recording, scratch: string): Promise<void> {
  const recorded = rec.events.find((e) => known(e).type === 'system_prompt.recorded' && (e.payload as { agent_id?: string }).agent_id === 'main');
  const text = String((recorded?.payload as { text?: string } | undefined)?.text ?? '');
  const at = text.indexOf(INSTRUCTIONS);
  if (at >= 0) await writeFile(path.join(scratch, 'AGENTS.md'), text.slice(at + INSTRUCTIONS.length));
}

/**
 * The replay home's config.toml: the origin's (settings.json `config.raw`, secrets already removed) with
 * every provider replaced by a credential-less stand-in (the model never leaves the process), no hooks,
 * no auto titles; a model alias a turn used and the config lacks is added.
 */
export function replayConfig(rec: Recording): string {
  const doc: Record<string, any> = structuredClone(rec.rawConfig ?? {});
  const providers: Record<string, unknown> = {};
  for (const [name, p] of Object.entries((doc.providers ?? {}) as Record<string, { type?: string }>)) {
    providers[name] = { type: typeof p?.type === 'string' ? p.type : 'chat_compat', base_url: 'http://replay.invalid/' };
  }
  providers.replay = { type: 'chat_compat', base_url: 'http://replay.invalid/' };
  doc.providers = providers;
  delete doc.hooks;
  doc.auto_session_title = false;
  const models = (doc.models ??= {}) as Record<string, Record<string, unknown>>;
  for (const e of rec.events) {
    const alias = known(e).type === 'turn.started' ? (e.payload as { model?: string }).model : undefined;
    if (alias && !models[alias]) models[alias] = { provider: 'replay', model: alias };
    if (alias && typeof doc.default_model !== 'string') doc.default_model = alias;
  }
  return stringify(doc);
}
