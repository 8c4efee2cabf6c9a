import { open, readFile } from 'node:fs/promises';
import { parse } from 'smol-toml';
import type { Doc } from './read.ts';

export type FileRead =
  | { kind: 'ok'; text: string; doc: Doc }
  | { kind: 'missing' }
  /** `message` never quotes the file: a TOML error excerpt could hold an API key. `line`/`column` of a parse error (1-based). */
  | { kind: 'invalid'; text?: string; message: string; line?: number; column?: number };

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
    const { line, column } = err as { line?: number; column?: number };
    return { kind: 'invalid', text, message: safeMessage(err), ...(line ? { line, column } : {}) };
  }
}

/**
 * Creates `file` with `text` unless it exists (two daemons starting on a new home, or a file the
 * user wrote meanwhile: the first one stays). Resolves to whether this call created it.
 */
export async function createFileOnce(file: string, text: string, mode = 0o600): Promise<boolean> {
  let fh;
  try {
    fh = await open(file, 'wx', mode);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  }
  try {
    await fh.writeFile(text);
    await fh.sync();
  } finally {
    await fh.close();
  }
  return true;
}
