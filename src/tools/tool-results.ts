import { mkdir, realpath, writeFile } from 'node:fs/promises';
import path from 'node:path';

/**
 * Tool outputs too large for one tool result, saved whole where the session's Read tool can open them:
 * `<home>/tool-results/<session id>/<tool call id>.txt` (or `.json`). Read accepts a path inside the
 * session's own folder besides the workspace (read-only: no other tool writes there).
 */

/** Characters of text one MCP tool result may carry (the reference client's cap); above it, a preview and the saved file. */
export const TOOL_RESULT_CAP = 50_000;
/** Characters of the preview sent in place of a larger output. */
export const PREVIEW_CHARS = 2_000;

const safe = (s: string) => s.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 200) || '_';

export function toolResultsDir(home: string, sessionId: string): string {
  return path.join(home, 'tool-results', safe(sessionId));
}

/** Saves one call's whole output (JSON pretty-printed, so Read can page through it by lines); answers its path. */
export async function saveToolOutput(home: string, sessionId: string, toolCallId: string, text: string): Promise<string> {
  const dir = toolResultsDir(home, sessionId);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const json = asJson(text);
  const file = path.join(dir, `${safe(toolCallId)}.${json === undefined ? 'txt' : 'json'}`);
  await writeFile(file, json ?? text, { mode: 0o600 });
  return file;
}

/** Saves media a tool returned that no model part carries (MCP audio); answers its path. */
export async function saveToolBytes(home: string, sessionId: string, name: string, mediaType: string, bytes: Buffer): Promise<string> {
  const dir = toolResultsDir(home, sessionId);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const ext = (mediaType.split('/')[1] ?? 'bin').replace(/[^A-Za-z0-9]/g, '').slice(0, 10) || 'bin';
  const file = path.join(dir, `${safe(name)}.${ext}`);
  await writeFile(file, bytes, { mode: 0o600 });
  return file;
}

function asJson(text: string): string | undefined {
  const t = text.trimStart();
  if (!t.startsWith('{') && !t.startsWith('[')) return undefined;
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    // Not JSON after all: saved as text.
    return undefined;
  }
}

/**
 * `text` within `cap` characters: as it is when it fits; else the whole text is saved and the answer is a
 * note with the file's path and a preview of its head.
 */
export async function capToolText(text: string, cap: number, save: (text: string) => Promise<string>): Promise<string> {
  if (text.length <= cap) return text;
  const file = await save(text);
  const cut = text.lastIndexOf('\n', PREVIEW_CHARS);
  const preview = text.slice(0, cut > PREVIEW_CHARS / 2 ? cut : PREVIEW_CHARS);
  return `[Output too large for one tool result: ${text.length.toLocaleString('en-US')} characters (limit ${cap.toLocaleString('en-US')}). `
    + `The whole output is saved at ${file}; read it in parts with the Read tool (offset and limit, in lines).]\n`
    + `Preview (first ${preview.length.toLocaleString('en-US')} characters):\n${preview}`;
}

/** The real path of `given` when it is a file under the session's tool-results folder (Read may open it), else undefined. */
export async function savedOutput(home: string, sessionId: string, given: string): Promise<string | undefined> {
  if (!path.isAbsolute(given)) return undefined;
  const dir = toolResultsDir(home, sessionId);
  const rel = path.relative(dir, path.resolve(given));
  if (!rel || rel.startsWith('..') || path.isAbsolute(rel)) return undefined;
  try {
    const [real, realDir] = await Promise.all([realpath(given), realpath(dir)]);
    const r = path.relative(realDir, real);
    return r && !r.startsWith('..') && !path.isAbsolute(r) ? real : undefined;
  } catch (err) {
    // Not there (any more): Read says the file was not found.
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return path.resolve(given);
    throw err;
  }
}
