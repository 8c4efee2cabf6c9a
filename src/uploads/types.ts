/** What is stored beside each upload (meta.json) and returned on the wire. */
export interface UploadMeta {
  id: string;
  /** Display name: the `name` field, else the uploaded filename. */
  name: string;
  media_type: string;
  size: number;
  /** ISO 8601. */
  created_at: string;
  /** ISO 8601; absent when the file never expires. */
  expires_at?: string;
}

// The wire schema owns the id's shape; the store checks ids (and directory names) with the same pattern.
export { FILE_ID_RE } from '../../protocol/schemas/files.ts';

export const DEFAULT_MAX_UPLOAD_BYTES = 512 * 1024 * 1024;
export const DEFAULT_SWEEP_INTERVAL_MS = 60_000;

export interface UploadLimits {
  maxBytes: number;
  sweepIntervalMs: number;
}

/** The defaults; SVC_CODE_UPLOAD_MAX_BYTES and SVC_CODE_UPLOAD_SWEEP_INTERVAL_MS replace them (src/app/settings.ts). */
export const DEFAULT_UPLOAD_LIMITS: UploadLimits = { maxBytes: DEFAULT_MAX_UPLOAD_BYTES, sweepIntervalMs: DEFAULT_SWEEP_INTERVAL_MS };

/** "512 MiB" / "1024 bytes", for messages and route summaries. */
export function formatBytes(n: number): string {
  if (n % (1024 * 1024) === 0) return `${n / (1024 * 1024)} MiB`;
  if (n % 1024 === 0) return `${n / 1024} KiB`;
  return `${n} bytes`;
}
