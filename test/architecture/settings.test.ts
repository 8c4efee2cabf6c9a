import test from 'ava';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { ROOT } from '../helpers/built.ts';

// The environment is read once, at the edge (src/cli/: readSettings(process.env)), into the typed settings of
// src/app/settings.ts that the phases pass down (docs/settings.md). Elsewhere the process environment is only
// copied or probed for a child process, in the files below; anything else is configuration read in the wrong place.
const ALLOWED: Record<string, string> = {
  'src/lib/child-env.ts': 'every child process\'s environment: the daemon\'s without its secrets (test/architecture/child-env)',
  'src/terminals/open.ts': 'a PTY\'s shell: found on the user\'s SHELL / PATH, started with their environment',
  'src/capabilities/checks.ts': 'capability checks probe the host per check: programs on PATH (SVC_CODE_CAPABILITY_PLATFORM: tests)',
  'src/capabilities/defs.ts': 'capability checks probe the host per check: a display (DISPLAY, WAYLAND_DISPLAY)',
};

/** The code of a TypeScript file without its comments (a comment may name process.env; only code reads it). */
function code(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1');
}

async function readers(): Promise<string[]> {
  const found: string[] = [];
  for (const dir of ['src', 'projections', 'protocol', 'journal']) {
    for (const d of await readdir(path.join(ROOT, dir), { withFileTypes: true, recursive: true })) {
      if (!d.isFile() || !d.name.endsWith('.ts')) continue;
      const file = path.relative(ROOT, path.join(d.parentPath, d.name)).split(path.sep).join('/');
      if (file.startsWith('src/cli/')) continue;
      if (/\bprocess\.env\b/.test(code(await readFile(path.join(ROOT, file), 'utf8')))) found.push(file);
    }
  }
  return found.sort();
}

test('process.env is read only at the CLI edge and where a child process\'s environment is built', async (t) => {
  const found = await readers();
  t.deepEqual(found.filter((f) => !(f in ALLOWED)), [], 'read the setting in src/app/settings.ts and pass it down');
  t.deepEqual(Object.keys(ALLOWED).filter((f) => !found.includes(f)).sort(), [], 'an allowed file that no longer reads the environment leaves the list');
});

test('the comment stripper keeps code and drops comments', (t) => {
  t.false(/process\.env/.test(code('/** reads process.env */\nconst a = 1; // process.env\n')));
  t.true(/process\.env/.test(code('const url = "http://x"; const e = process.env.X;')));
});
