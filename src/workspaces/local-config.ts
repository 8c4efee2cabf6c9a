import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { parse, stringify } from 'smol-toml';
import { validationError } from '../../protocol/errors.ts';
import { writeFileAtomic } from '../lib/fs-atomic.ts';

type Table = Record<string, unknown>;

/** `<root>/.svc-code/local.toml` (Part B "Project-local configuration"). */
export function localConfigPath(root: string): string {
  return path.join(root, '.svc-code', 'local.toml');
}

function corrupted(file: string, why: string) {
  return validationError(
    [{ field: 'config_path', message: `corrupted project local config ${file}: ${why}` }],
    `corrupted project local config ${file}: ${why}`,
  );
}

const isTable = (x: unknown): x is Table => typeof x === 'object' && x !== null && !Array.isArray(x) && !(x instanceof Date);

/** The parsed file; `{}` when it does not exist. Unreadable or invalid TOML: 40001. */
export async function readLocalConfig(file: string): Promise<Table> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw corrupted(file, `cannot read (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  try {
    return parse(text) as Table;
  } catch (err) {
    throw corrupted(file, (err as Error).message.split('\n')[0]);
  }
}

/** `[workspace] additional_dir` as stored; a wrong shape counts as corruption (40001). */
export function storedDirs(doc: Table, file: string): string[] {
  const ws = doc.workspace;
  if (ws === undefined) return [];
  if (!isTable(ws)) throw corrupted(file, '`workspace` must be a table');
  const dirs = ws.additional_dir;
  if (dirs === undefined) return [];
  if (!Array.isArray(dirs) || !dirs.every((d) => typeof d === 'string')) {
    throw corrupted(file, '`workspace.additional_dir` must be an array of strings');
  }
  return [...dirs];
}

/** A copy of `doc` with `workspace.additional_dir` replaced; every other key kept. */
export function withDirs(doc: Table, dirs: string[]): Table {
  const ws = isTable(doc.workspace) ? doc.workspace : {};
  return { ...doc, workspace: { ...ws, additional_dir: dirs } };
}

/**
 * Writes atomically (temp file in the same directory, then rename), creating
 * `.svc-code/` as needed. Comments in a hand-edited file are not preserved
 * (smol-toml keeps values, not layout).
 */
export async function writeLocalConfig(file: string, doc: Table): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  await writeFileAtomic(file, stringify(doc) + '\n', 0o644);
}
