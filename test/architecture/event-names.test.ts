import test from 'ava';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { eventDefs } from '../../protocol/events/registry.ts';
import { ROOT } from '../helpers/built.ts';
import { scanEventNames, type Finding } from './event-names-scan.ts';

// One way to name an event (issue 27): a literal the compiler checks against the registry's names. A literal
// compared with, or passed where, a plain string is expected is a name no rename would catch.

const PLANTED = 'test/architecture/planted/event-names.ts';

async function sources(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const d of await readdir(path.join(ROOT, dir), { withFileTypes: true, recursive: true })) {
    if (d.isFile() && d.name.endsWith('.ts')) out.push(path.join(d.parentPath, d.name));
  }
  return out;
}

/** One program for both tests (about 15 s of type checking on a quiet machine). */
const scan = (async () => {
  const files = [...(await Promise.all(['src', 'projections', 'journal', 'protocol'].map(sources))).flat(), path.join(ROOT, PLANTED)];
  return scanEventNames({ root: ROOT, files, names: new Set([...eventDefs()].map((d) => d.type)) });
})();

const show = (f: Finding) => `${f.file}:${f.line} '${f.name}': ${f.why}`;

test('every event name in src/, projections/, journal/ and protocol/ is checked by the compiler against the registry', async (t) => {
  t.timeout(600_000);
  const found = (await scan).filter((f) => f.file !== PLANTED);
  t.deepEqual(found.map(show), []);
});

test('the scan reports each planted mistake and nothing else in that file', async (t) => {
  t.timeout(600_000);
  const text = await readFile(path.join(ROOT, PLANTED), 'utf8');
  const expected = text.split('\n').flatMap((line, i) => {
    if (!line.includes('// planted')) return [];
    return [...line.split('// planted')[0]!.matchAll(/'([a-z_]+(?:\.[a-z_]+)+)'/g)].map((m) => `${i + 1} ${m[1]}`);
  });
  t.true(expected.length >= 8, 'the planted file has its mistakes');
  const reported = (await scan).filter((f) => f.file === PLANTED).map((f) => `${f.line} ${f.name}`);
  t.deepEqual(reported, expected);
});
