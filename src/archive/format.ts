import { createHash } from 'node:crypto';

/** What `manifest.json` says it is (docs/export.md). */
export const ARCHIVE_FORMAT = 'svc-code.session-export';
export const ARCHIVE_VERSION = 1;

/** Bounds an import checks before inflating anything (a zip bomb is refused, not inflated). */
export const IMPORT_MAX_ENTRIES = 10_000;
export const IMPORT_MAX_INFLATED_BYTES = 1024 * 1024 * 1024;

/** One journal stream of the archive: the session's own, or a child session's (forks made with POST /children). */
export interface ManifestStream {
  session_id: string;
  parent_id: string | null;
  epoch: string;
  created_at: string;
  /** Seq of the last event; every event 1..head_seq is in the file. */
  head_seq: number;
  file: string;
}

export interface ManifestFile {
  path: string;
  bytes: number;
  sha256: string;
}

export interface Manifest {
  format: typeof ARCHIVE_FORMAT;
  format_version: number;
  server_version: string;
  exported_at: string;
  session_id: string;
  workspace: { id: string; root: string; name: string } | null;
  streams: ManifestStream[];
  counts: { streams: number; events: number; messages: number; agents: number; turns: number; log_lines: number; web_log_bytes: number };
  /** `included` when a desktop host log was asked for and found; this daemon has no desktop host. */
  desktop_log: 'not_requested' | 'not_available';
  /** Every entry but the manifest, with its size and SHA-256. */
  files: ManifestFile[];
}

/** One line of `journal/<session_id>.jsonl`. */
export interface JournalLine {
  seq: number;
  epoch: string;
  type: string;
  ts: string;
  payload: unknown;
}

export function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

export const journalFile = (sessionId: string) => `journal/${sessionId}.jsonl`;
