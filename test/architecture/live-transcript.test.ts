import test from 'ava';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { ROOT } from '../helpers/built.ts';

// The live transcript is a read model (issue 27, docs/transcript.md "Ops"): its folds, trimming and op journal live
// in projections/transcript/live/; src/ws/ keeps the pacing and the delivery. The record handlers hand their ops
// back (applyLive / applyVolatile), with no side channel on the state.

async function files(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const d of await readdir(path.join(ROOT, dir), { withFileTypes: true, recursive: true })) {
    if (d.isFile() && d.name.endsWith('.ts')) out.push(path.relative(ROOT, path.join(d.parentPath, d.name)));
  }
  return out;
}

/** The modules that fold session state: the reducers, the streamed-input fold, the lazy folds. */
const FOLDS = ['projections/transcript/reducer.ts', 'projections/transcript/records-live.ts', 'projections/lazy-projection.ts'];

test('src/ws/ folds no session state: it imports none of the transcript folds', async (t) => {
  const found: string[] = [];
  for (const f of await files('src/ws')) {
    const text = await readFile(path.join(ROOT, f), 'utf8');
    for (const m of text.matchAll(/^(?:import|export)\s+(type\s+)?[^;]*?\bfrom\s+'([^']+)'/gm)) {
      const target = path.relative(ROOT, path.resolve(ROOT, path.dirname(f), m[2]!));
      if (!m[1] && FOLDS.includes(target)) found.push(`${f}: ${m[0]}`);
    }
  }
  t.deepEqual(found, []);
});

test('no ops side channel on the records state: the handlers return their ops', async (t) => {
  const found: string[] = [];
  for (const f of [...await files('src'), ...await files('projections')]) {
    const text = await readFile(path.join(ROOT, f), 'utf8');
    text.split('\n').forEach((line, i) => {
      if (/rec\.sink|\.sink =/.test(line)) found.push(`${f}:${i + 1}: ${line.trim()}`);
    });
  }
  t.deepEqual(found, []);
});
