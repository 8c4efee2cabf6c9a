import { copyFile, readFile } from 'node:fs/promises';
import { parse, stringify } from 'smol-toml';
import type { Doc } from './read.ts';

export type FileRead =
  | { kind: 'ok'; text: string; doc: Doc }
  | { kind: 'missing' }
  /** `message` never quotes the file: a TOML error excerpt could hold an API key. */
  | { kind: 'invalid'; text?: string; message: string };

/** First line of a parse error plus its position; smol-toml appends a code excerpt we must not log. */
function safeMessage(err: unknown): string {
  const e = err as { message?: string; line?: number; column?: number };
  const first = (e.message ?? String(err)).split('\n')[0];
  return e.line ? `${first} (line ${e.line}, column ${e.column})` : first;
}

/** Reads and parses `file`; never throws. */
export async function readConfigFile(file: string): Promise<FileRead> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { kind: 'missing' };
    return { kind: 'invalid', message: safeMessage(err) };
  }
  try {
    return { kind: 'ok', text, doc: parse(text) as Doc };
  } catch (err) {
    return { kind: 'invalid', text, message: safeMessage(err) };
  }
}

export function toToml(doc: Doc): string {
  return stringify(doc);
}

export { writeFileAtomic } from '../lib/fs-atomic.ts';

/** Keeps a copy of a file the user broke before it is replaced by a POST. */
export async function backupBrokenFile(file: string): Promise<string | undefined> {
  const backup = `${file}.invalid.bak`;
  try {
    await copyFile(file, backup);
    return backup;
  } catch {
    // Nothing to keep (missing, or a directory in the way); the write will report its own error.
    return undefined;
  }
}
