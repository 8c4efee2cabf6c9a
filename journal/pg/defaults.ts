// Imported by the settings of every command: nothing here may load the PostgreSQL client.

/** How long a write or read retries while the database is unreachable (`SVC_CODE_JOURNAL_RETRY_MS`). */
export const DEFAULT_JOURNAL_RETRY_MS = 15_000;
