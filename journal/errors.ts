/**
 * The journal's two failures. An append whose records cannot be encoded is
 * refused on its own (nothing reaches the store or memory; the journal keeps
 * working); a store failure (disk full, I/O error) fails that batch and every
 * later append until the daemon restarts.
 */

/** An append refused before it reached the store: a record cannot be encoded as JSON. */
export class JournalEncodeError extends Error {
  override readonly name = 'JournalEncodeError';
  /** The key of the record that failed (`e!<stream>!<seq>` for events). */
  readonly key: string;

  constructor(key: string, cause: unknown) {
    super(`record cannot be stored: ${reason(cause)}`, { cause });
    this.key = key;
  }
}

/** The store failed (or memory can no longer be trusted to match it); the journal refuses writes until restart. */
export class JournalStoreError extends Error {
  override readonly name = 'JournalStoreError';

  constructor(cause: unknown) {
    super(`journal store failed: ${reason(cause)}`, { cause });
  }
}

function reason(cause: unknown): string {
  const e = cause as { message?: unknown } | undefined;
  if (e && typeof e.message === 'string') {
    // V8's wording for JSON.stringify on a value nested too deeply.
    if (/call stack/i.test(e.message)) return 'value nested too deeply';
    if (/string length/i.test(e.message)) return 'value too large';
    return e.message;
  }
  return String(cause);
}
