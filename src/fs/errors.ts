import { Codes } from '../../protocol/codes.ts';
import { ApiError } from '../../protocol/errors.ts';

export function errno(err: unknown): string | undefined {
  return (err as NodeJS.ErrnoException)?.code;
}

export function pathNotFound(given: string, reason = 'not found'): ApiError {
  return new ApiError(Codes.PATH_NOT_FOUND, `path ${reason}: ${given}`, { details: { path: given, reason } });
}

export function notADirectory(given: string): ApiError {
  return new ApiError(Codes.PATH_NOT_FOUND, `not a directory: ${given}`, { details: { path: given, reason: 'not_a_directory' } });
}

export function isADirectory(given: string): ApiError {
  return new ApiError(Codes.PATH_IS_DIRECTORY, `path is a directory: ${given}`, { details: { path: given } });
}

export function permissionDenied(given: string): ApiError {
  return new ApiError(Codes.PERMISSION_DENIED, `permission denied: ${given}`, { details: { path: given } });
}

export function pathExists(given: string): ApiError {
  return new ApiError(Codes.PATH_EXISTS, `path already exists: ${given}`, { details: { path: given } });
}

/**
 * Maps a file-system error to its business code (missing -> 40409, denied ->
 * 40411, exists -> 40919); anything else is rethrown as is (a 50001).
 */
export function fsError(err: unknown, given: string): never {
  if (err instanceof ApiError) throw err;
  switch (errno(err)) {
    case 'ENOENT':
    case 'ENOTDIR':
    case 'ELOOP':
      throw pathNotFound(given);
    case 'EACCES':
    case 'EPERM':
      throw permissionDenied(given);
    case 'EEXIST':
      throw pathExists(given);
    default:
      throw err;
  }
}
