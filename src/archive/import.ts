import * as v from 'valibot';
import { strFromU8, unzipSync } from 'fflate';
import { GLOBAL_STREAM } from '../../journal/keys.ts';
import type { Journal } from '../../journal/journal.ts';
import type { StoredEvent } from '../../journal/types.ts';
import type { SessionIndex } from '../../projections/session-index/session-index.ts';
import type { WorkspaceRegistry } from '../../projections/workspaces/workspace-registry.ts';
import { eventDef, type NewStreamEvent } from '../../protocol/events/registry.ts';
import { known } from '../../protocol/events/known.ts';
import { validationError } from '../../protocol/errors.ts';
import type * as vt from 'valibot';
import type { SessionObject as SessionObjectSchema } from '../../protocol/schemas/sessions.ts';
type SessionObject = vt.InferOutput<typeof SessionObjectSchema>;
import type { Clock } from '../lib/clock.ts';
import type { Ids } from '../lib/ids.ts';
import type { LiveSessions } from '../sessions/live.ts';
import { toSessionObject } from '../sessions/view.ts';
import { workspaceUpsertEvents } from '../workspaces/service.ts';
import { ARCHIVE_FORMAT, ARCHIVE_VERSION, IMPORT_MAX_ENTRIES, IMPORT_MAX_INFLATED_BYTES, sha256, type JournalLine, type Manifest } from './format.ts';

export interface ImportDeps {
  journal: Journal;
  sessions: SessionIndex;
  workspaces: WorkspaceRegistry;
  live: LiveSessions;
  clock: Clock;
  ids: Ids;
}

export interface ImportResult {
  session: SessionObject;
  /** The id the session had in the archive. */
  original_id: string;
  /** true when that id was taken here and the session got a new one. */
  id_changed: boolean;
  streams: number;
  events: number;
}

const invalid = (message: string) => validationError([{ field: 'file', message: `not a session export: ${message}` }]);

const SESSION_ID = /^session_[0-9A-Za-z]{1,64}$/;

/** Reads and checks an archive: every file in the manifest present with its checksum, every stream complete. */
export function readArchive(zip: Uint8Array): { manifest: Manifest; files: Record<string, Uint8Array> } {
  let files: Record<string, Uint8Array>;
  try {
    let entries = 0;
    let inflated = 0;
    files = unzipSync(zip, {
      filter: (f) => {
        entries += 1;
        inflated += f.originalSize;
        if (entries > IMPORT_MAX_ENTRIES || inflated > IMPORT_MAX_INFLATED_BYTES) throw new RangeError('archive too large');
        return true;
      },
    });
  } catch (err) {
    throw invalid(err instanceof RangeError ? 'too many entries or too large once inflated' : 'not a readable zip');
  }
  const raw = files['manifest.json'];
  if (!raw) throw invalid('no manifest.json');
  let manifest: Manifest;
  try {
    manifest = JSON.parse(strFromU8(raw)) as Manifest;
  } catch {
    throw invalid('manifest.json is not JSON');
  }
  if (manifest?.format !== ARCHIVE_FORMAT) throw invalid(`manifest format is not ${ARCHIVE_FORMAT}`);
  if (manifest.format_version !== ARCHIVE_VERSION) throw invalid(`unsupported format_version ${String(manifest.format_version)}`);
  if (!Array.isArray(manifest.files) || !Array.isArray(manifest.streams) || !manifest.streams.length) throw invalid('manifest lists no streams');
  for (const f of manifest.files) {
    const bytes = files[f?.path];
    if (!bytes) throw invalid(`missing ${String(f?.path)}`);
    if (sha256(bytes) !== f.sha256) throw invalid(`checksum mismatch on ${f.path}`);
  }
  const listed = new Set(manifest.files.map((f) => f.path));
  for (const s of manifest.streams) {
    if (typeof s?.session_id !== 'string' || !SESSION_ID.test(s.session_id)) throw invalid('a stream has no valid session id');
    if (!listed.has(s.file)) throw invalid(`stream file ${String(s.file)} not in the manifest`);
  }
  if (manifest.streams[0].session_id !== manifest.session_id) throw invalid('the first stream is not the session');
  return { manifest, files };
}

/** The stream's events, checked: seqs 1..head, one epoch, registered session-stream types with valid payloads (event i has seq i + 1). */
export function streamRecords(text: string, s: Manifest['streams'][number]): StoredEvent[] {
  const lines = text.split('\n').filter((l) => l.length);
  if (lines.length !== s.head_seq) throw invalid(`${s.file}: ${lines.length} events, head_seq ${s.head_seq}`);
  return lines.map((l, i) => {
    let e: JournalLine;
    try {
      e = JSON.parse(l) as JournalLine;
    } catch {
      throw invalid(`${s.file}: line ${i + 1} is not JSON`);
    }
    if (e?.seq !== i + 1 || e.epoch !== s.epoch) throw invalid(`${s.file}: line ${i + 1} out of sequence`);
    const def = eventDef(e.type);
    if (!def || def.stream !== 'session' || def.durability !== 'durable') throw invalid(`${s.file}: line ${i + 1}: unknown session event ${String(e.type)}`);
    if (!v.is(def.payload, e.payload)) throw invalid(`${s.file}: line ${i + 1}: ${e.type} payload does not match its schema`);
    if (typeof e.ts !== 'string') throw invalid(`${s.file}: line ${i + 1}: no ts`);
    return { type: e.type, ts: e.ts, payload: e.payload };
  });
}

/**
 * Brings an exported session (and its children) into this journal. A session id already taken here
 * gets a new id (every mention of the old one in its events is rewritten); seqs and epochs are kept, so
 * every read of the session answers as on the daemon it came from.
 */
export async function importArchive(deps: ImportDeps, zip: Uint8Array): Promise<ImportResult> {
  const { manifest, files } = readArchive(zip);
  const rename = new Map<string, string>();
  for (const s of manifest.streams) {
    if (deps.journal.hasStream(s.session_id) || deps.sessions.get(s.session_id)) rename.set(s.session_id, deps.ids.next('session'));
  }
  const rewrite = (text: string) => {
    let out = text;
    for (const [from, to] of rename) out = out.split(from).join(to);
    return out;
  };
  const prepared = manifest.streams.map((s) => ({ s, id: rename.get(s.session_id) ?? s.session_id, records: streamRecords(rewrite(strFromU8(files[s.file])), s) }));
  let events = 0;
  for (const { s, id, records } of prepared) {
    const first = records[0];
    if (!first || known(first).type !== 'session.created') throw invalid(`${s.file}: does not start with session.created`);
    await deps.journal.importStream(id, { epoch: s.epoch, seq: s.head_seq, created_at: s.created_at }, records);
    events += records.length;
    const record = deps.sessions.get(id);
    if (!record) continue;
    // Imported events are never broadcast: clients hear of the session (and its workspace) from these.
    const root = manifest.workspace?.id === record.workspace_id ? manifest.workspace.root : record.cwd;
    const ws = deps.workspaces.get(record.workspace_id) ? [] : workspaceUpsertEvents(deps, root, { reopen: false, name: manifest.workspace?.name }).events;
    await deps.journal.append([...ws, { stream: GLOBAL_STREAM, type: 'event.session.created', payload: toSessionObject(record, deps.live) } satisfies NewStreamEvent]);
  }
  const id = rename.get(manifest.session_id) ?? manifest.session_id;
  const record = deps.sessions.get(id);
  if (!record) throw invalid('the session stream did not produce a session');
  return { session: toSessionObject(record, deps.live), original_id: manifest.session_id, id_changed: rename.has(manifest.session_id), streams: prepared.length, events };
}
