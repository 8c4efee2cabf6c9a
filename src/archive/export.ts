import { strToU8, zipSync, type Zippable } from 'fflate';
import type { MessageLog } from '../../projections/messages/message-log.ts';
import type { SessionIndex, SessionRecord } from '../../projections/session-index/session-index.ts';
import { foldTranscriptRecords } from '../../projections/transcript/projection.ts';
import { recordsPage } from '../../projections/transcript/records-view.ts';
import type { Message } from '../../projections/contract.ts';
import type { Journal } from '../../journal/journal.ts';
import type { ConfigService } from '../config/service.ts';
import { REDACTED } from '../config/view.ts';
import { findSession, type SessionLookup } from '../sessions/lookup.ts';
import { toSessionObject } from '../sessions/view.ts';
import type { LiveSessions } from '../sessions/live.ts';
import type { Clock } from '../lib/clock.ts';
import type { SessionLogTap } from './log-tap.ts';
import { ARCHIVE_FORMAT, ARCHIVE_VERSION, journalFile, sha256, type JournalLine, type Manifest, type ManifestStream } from './format.ts';

export interface ExportDeps extends SessionLookup {
  journal: Journal;
  sessions: SessionIndex;
  messages: MessageLog;
  live: LiveSessions;
  config: Pick<ConfigService, 'view'>;
  logTap: SessionLogTap;
  clock: Clock;
  version: string;
}

export interface ExportOptions {
  webLog?: string;
  desktop?: boolean;
}

const MESSAGE_PAGE = 100;

/** The session and its children, parents first. */
function familyOf(deps: Pick<ExportDeps, 'sessions'>, root: SessionRecord): SessionRecord[] {
  const out: SessionRecord[] = [];
  const queue = [root];
  const seen = new Set<string>();
  while (queue.length) {
    const s = queue.shift()!;
    if (seen.has(s.id)) continue;
    seen.add(s.id);
    out.push(s);
    queue.push(...deps.sessions.walkChildren(s.id));
  }
  return out;
}

/** Every message of the main agent, newest first, as GET /messages pages them. */
async function allMessages(deps: Pick<ExportDeps, 'messages'>, sessionId: string): Promise<Message[]> {
  const out: Message[] = [];
  let from: { older?: number } = {};
  for (;;) {
    const page = await deps.messages.page(sessionId, MESSAGE_PAGE, from);
    out.push(...page.items);
    if (!page.has_more || !page.items.length) return out;
    const seq = await deps.messages.seqOf(sessionId, page.items.at(-1)!.id);
    if (seq === undefined) return out;
    from = { older: seq };
  }
}

/** GET /transcript of every rostered agent with every turn on one page (no live-only `seq`), from a fresh fold of the records. */
async function transcripts(deps: Pick<ExportDeps, 'journal'>, sessionId: string) {
  const { state } = await foldTranscriptRecords(deps.journal, sessionId);
  const agents: Record<string, ReturnType<typeof recordsPage>> = {};
  for (const id of state.roster.keys()) agents[id] = recordsPage(state, { agent_id: id, page_size: Number.MAX_SAFE_INTEGER }, undefined);
  const turns = Object.values(agents).reduce((n, page) => n + (page?.items.filter((i) => i.kind === 'turn').length ?? 0), 0);
  return { agents, turns };
}

/** The config view with every secret removed (not masked: the key is gone too). */
export function withoutSecrets(x: unknown): unknown {
  if (Array.isArray(x)) return x.filter((v) => v !== REDACTED).map(withoutSecrets);
  if (typeof x !== 'object' || x === null) return x;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(x)) {
    if (v === REDACTED) continue;
    const kept = withoutSecrets(v);
    if (typeof v === 'object' && v !== null && !Array.isArray(v) && Object.keys(kept as object).length === 0 && Object.keys(v).length > 0) continue;
    out[k] = kept;
  }
  return out;
}

const json = (x: unknown) => strToU8(`${JSON.stringify(x, null, 2)}\n`);

/**
 * POST /sessions/{id}/export: the zip of docs/export.md. Reads projections and the journal only
 * (a cold session stays cold).
 */
export async function exportSession(deps: ExportDeps, sessionId: string, opts: ExportOptions): Promise<{ zip: Uint8Array; manifest: Manifest }> {
  const root = findSession(deps, sessionId);
  const family = familyOf(deps, root);
  const files: Record<string, Uint8Array> = {};
  const streams: ManifestStream[] = [];
  let events = 0;
  for (const s of family) {
    const head = deps.journal.head(s.id);
    if (!head) continue;
    const lines = (await deps.journal.readRange(s.id, 1, head.seq)).map((e): JournalLine => ({ seq: e.seq, epoch: e.epoch, type: e.type, ts: e.ts, payload: e.payload }));
    events += lines.length;
    const file = journalFile(s.id);
    files[file] = strToU8(lines.map((l) => JSON.stringify(l)).join('\n') + (lines.length ? '\n' : ''));
    streams.push({ session_id: s.id, parent_id: s.id === root.id ? null : (s.parent_id ?? null), epoch: head.epoch, created_at: head.created_at, head_seq: head.seq, file });
  }
  const messages = await allMessages(deps, sessionId);
  const transcript = await transcripts(deps, sessionId);
  const logLines = deps.logTap.lines(sessionId);
  const session = toSessionObject(root, deps.live);
  files['session.json'] = json(session);
  files['messages.json'] = json({ items: messages, has_more: false });
  files['transcript.json'] = json({ agents: transcript.agents });
  files['settings.json'] = json({ session: { agent_config: session.agent_config, metadata: session.metadata }, config: withoutSecrets(deps.config.view()) });
  files['daemon.log'] = strToU8(logLines.map((l) => `${l}\n`).join(''));
  const webLog = strToU8(opts.webLog ?? '');
  if (opts.webLog !== undefined) files['web_log.txt'] = webLog;
  const ws = deps.workspaces.get(root.workspace_id);
  const manifest: Manifest = {
    format: ARCHIVE_FORMAT,
    format_version: ARCHIVE_VERSION,
    server_version: deps.version,
    exported_at: deps.clock.now().toISOString(),
    session_id: root.id,
    workspace: ws ? { id: ws.id, root: ws.root, name: ws.name } : null,
    streams,
    counts: {
      streams: streams.length, events, messages: messages.length, agents: Object.keys(transcript.agents).length, turns: transcript.turns,
      log_lines: logLines.length, web_log_bytes: webLog.byteLength,
    },
    desktop_log: opts.desktop ? 'not_available' : 'not_requested',
    files: Object.entries(files).map(([path, bytes]) => ({ path, bytes: bytes.byteLength, sha256: sha256(bytes) })),
  };
  const entries: Zippable = { 'manifest.json': json(manifest) };
  for (const [path, bytes] of Object.entries(files)) entries[path] = bytes;
  return { zip: zipSync(entries, { level: 6 }), manifest };
}
