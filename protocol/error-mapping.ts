import { JournalEncodeError, JournalStoreError } from '../journal/errors.ts';
import { StreamConflictError } from '../journal/store.ts';
import { Codes } from './codes.ts';
import { ApiError } from './errors.ts';

/**
 * Errors thrown below the protocol layer that still have a business code;
 * the HTTP envelope and the WebSocket ack map them the same way. Anything
 * else is a fault (50001, logged with its stack).
 */
export function mappedError(err: unknown): ApiError | undefined {
  if (err instanceof ApiError) return err;
  if (err instanceof JournalEncodeError) {
    // Validation bounds every stored value; this is the journal's own guard behind it.
    return new ApiError(Codes.VALIDATION, err.message, { details: [{ field: 'body', message: err.message }] });
  }
  if (err instanceof JournalStoreError) {
    return new ApiError(Codes.PERSISTENCE, 'persistence failure: the journal cannot be written until the daemon restarts', {
      details: { reason: 'journal_store_failed' },
    });
  }
  if (err instanceof StreamConflictError) {
    // Several nodes on one PostgreSQL journal (docs/scale-out.md): another node wrote this session's stream first
    // (its lease was taken over while this node was cut off). Nothing of this command was written.
    return new ApiError(Codes.SESSION_BUSY, 'session was written by another svc-code node first; nothing of this request was written', {
      details: { reason: 'written_by_other_node', stream: err.stream },
    });
  }
  switch ((err as NodeJS.ErrnoException | undefined)?.code) {
    case 'ENAMETOOLONG': {
      const message = 'too long for the file system (a name over 255 bytes, or the whole path over 4096 bytes)';
      return new ApiError(Codes.VALIDATION, `path ${message}`, { details: [{ field: 'path', message, limit: 4096 }] });
    }
    case 'E2BIG': {
      const message = 'too long to pass to a child process';
      return new ApiError(Codes.VALIDATION, `arguments ${message}`, { details: [{ field: 'body', message }] });
    }
    default:
      return undefined;
  }
}
