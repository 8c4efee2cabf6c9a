import { statSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { parseSkillFile } from './parse.ts';
import type { Skill, SkillSource } from './types.ts';

/** One skill directory as last read: re-read only when SKILL.md's mtime or size moves. */
interface Entry {
  mtimeMs: number;
  size: number;
  skill: Omit<Skill, 'source'>;
}

interface RootCache {
  mtimeMs: number;
  dirs: string[];
  entries: Map<string, Entry>;
}

/**
 * Per-root cache. A root's own mtime moves when a skill directory is added or
 * removed (re-list); each SKILL.md is then one stat, re-parsed only when changed.
 * No watcher: a listing costs 1 + n stats once warm.
 */
const cache = new Map<string, RootCache>();

/**
 * A synchronous stat that returns undefined for a missing path: a scan runs per model request, and an async stat's
 * round trip (and a missing root's thrown error) cost ~100 us each under load, a local stat's syscall a few.
 */
function mtimeOf(p: string): { mtimeMs: number; size: number; dir: boolean } | undefined {
  try {
    const s = statSync(p, { throwIfNoEntry: false });
    return s && { mtimeMs: s.mtimeMs, size: s.size, dir: s.isDirectory() };
  } catch {
    return undefined;
  }
}

async function listDirs(root: string): Promise<string[]> {
  const ents = await readdir(root, { withFileTypes: true }).catch(() => []);
  // Symlinked skill directories are common (shared skill collections): keep them, SKILL.md's stat decides.
  return ents.filter((e) => (e.isDirectory() || e.isSymbolicLink()) && !e.name.startsWith('.')).map((e) => e.name).sort();
}

async function readEntry(dir: string, file: string, st: { mtimeMs: number; size: number }): Promise<Entry | undefined> {
  const text = await readFile(file, 'utf8').catch(() => undefined);
  if (text === undefined) return undefined;
  const p = parseSkillFile(text);
  const skill: Omit<Skill, 'source'> = { name: p.name ?? path.basename(dir), description: p.description ?? '', path: dir, content: p.body };
  if (p.type !== undefined) skill.type = p.type;
  if (p.disable_model_invocation !== undefined) skill.disable_model_invocation = p.disable_model_invocation;
  return { mtimeMs: st.mtimeMs, size: st.size, skill };
}

/** The skills of one root directory (each a subdirectory holding SKILL.md), in directory-name order. */
export async function scanRoot(root: string, source: SkillSource): Promise<Skill[]> {
  const st = mtimeOf(root);
  if (!st?.dir) {
    cache.delete(root);
    return [];
  }
  let rc = cache.get(root);
  if (!rc || rc.mtimeMs !== st.mtimeMs) {
    rc = { mtimeMs: st.mtimeMs, dirs: await listDirs(root), entries: rc?.entries ?? new Map() };
    cache.set(root, rc);
  }
  const out: Skill[] = [];
  for (const name of rc.dirs) {
    const dir = path.join(root, name);
    const file = path.join(dir, 'SKILL.md');
    const fst = mtimeOf(file);
    let entry = rc.entries.get(dir);
    if (!fst || fst.dir) {
      rc.entries.delete(dir);
      continue;
    }
    if (!entry || entry.mtimeMs !== fst.mtimeMs || entry.size !== fst.size) {
      entry = await readEntry(dir, file, fst);
      if (!entry) continue;
      rc.entries.set(dir, entry);
    }
    out.push({ ...entry.skill, source });
  }
  return out;
}
