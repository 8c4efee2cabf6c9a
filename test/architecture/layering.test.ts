import test from 'ava';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { ROOT } from '../helpers/built.ts';

// The layers (docs/architecture.md "Layers"): journal/ <- protocol/ <- projections/ <- src/. Each imports only
// the layers to its left (and packages).

async function sources(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const d of await readdir(path.join(ROOT, dir), { withFileTypes: true, recursive: true })) {
    if (d.isFile() && d.name.endsWith('.ts')) out.push(path.relative(ROOT, path.join(d.parentPath, d.name)));
  }
  return out;
}

/** Every import / re-export of a file: the folder it reaches (top level) and whether it is type-only. */
async function imports(file: string): Promise<Array<{ target: string; typeOnly: boolean; text: string }>> {
  const text = await readFile(path.join(ROOT, file), 'utf8');
  const found = [...text.matchAll(/^(import|export)\s+(type\s+)?[^;]*?\bfrom\s+'([^']+)'/gm), ...text.matchAll(/import\(\s*'([^']+)'\s*\)()()/g)];
  return found.map((m) => {
    const spec = m[3] ?? m[1]!;
    const target = spec.startsWith('.') ? path.relative(ROOT, path.resolve(ROOT, path.dirname(file), spec)).split(path.sep)[0]! : spec;
    return { target, typeOnly: Boolean(m[2]), text: m[0] };
  });
}

test('journal/ imports neither src/ nor projections/', async (t) => {
  const found: string[] = [];
  for (const f of await sources('journal')) for (const i of await imports(f)) if (i.target === 'src' || i.target === 'projections') found.push(`${f}: ${i.text}`);
  t.deepEqual(found, []);
});

test('protocol/ imports only journal/ and packages', async (t) => {
  const found: string[] = [];
  let seen = 0;
  for (const f of await sources('protocol')) {
    for (const i of await imports(f)) {
      seen += 1;
      if (i.target === 'src' || i.target === 'projections') found.push(`${f}: ${i.text}`);
    }
  }
  t.deepEqual(found, []);
  t.true(seen > 50, 'the scan sees protocol/\'s imports');
});

test('projections/ imports nothing of src/: the event contract comes from protocol/', async (t) => {
  const found: string[] = [];
  let contract = 0;
  for (const f of await sources('projections')) {
    for (const i of await imports(f)) {
      if (i.target === 'protocol') contract += 1;
      if (i.target === 'src') found.push(`${f}: ${i.text}`);
    }
  }
  t.deepEqual(found, []);
  t.true(contract > 0, 'the scan sees the contract\'s imports');
});
