import { readFile, writeFile, mkdir, utimes } from 'node:fs/promises';
import path from 'node:path';
import test from 'ava';
import { scripts } from '../../fixtures/llm/index.ts';
import { journal, prompt, startEngine, turnEnded, type EngineEnv } from '../helpers/engine.ts';

const YOLO = 'default_permission_mode = "yolo"';

type Call = [name: string, args: unknown];

/** One turn in which the model makes `calls` (ids c0, c1, ...) then answers; returns the tool.result payloads. */
async function runCalls(env: EngineEnv, calls: Call[], n = 1, extra: Record<string, unknown> = {}): Promise<any[]> {
  const base = `t${n}_`;
  env.llm.setScript({ events: calls.map(([name, args], i) => ({ tool_call: { id: `${base}${i}`, name, args } })) }, scripts.helloText);
  const r = await prompt(env, { content: [{ type: 'text', text: 'go' }], ...extra });
  if (r.code !== 0) throw new Error(JSON.stringify(r));
  await turnEnded(env, n, 30_000);
  const results = (await journal(env)).filter((e) => e.type === 'tool.result' && e.payload.tool_call_id.startsWith(base));
  return calls.map((_, i) => results.find((e) => e.payload.tool_call_id === `${base}${i}`)!.payload);
}

const cwdOf = (env: EngineEnv) => env.s.sessions.get(env.sid)!.cwd;

test('Write then Read shows numbered lines; offset/limit and the char budget cut the output', async (t) => {
  const env = await startEngine(t, { extraToml: YOLO });
  const body = Array.from({ length: 50 }, (_, i) => `line ${i + 1}`).join('\n') + '\n';
  const [w, r, part, budget, dir] = await runCalls(env, [
    ['Write', { file_path: 'deep/new/a.txt', content: body }],
    ['Read', { file_path: 'deep/new/a.txt' }],
    ['Read', { file_path: 'deep/new/a.txt', offset: 10, limit: 2 }],
    ['Read', { file_path: 'deep/new/a.txt', max_chars: 200 }],
    ['Read', { file_path: 'deep' }],
  ]);
  t.false(w.is_error);
  t.is(await readFile(path.join(cwdOf(env), 'deep/new/a.txt'), 'utf8'), body);
  t.false(r.is_error);
  t.true(r.content.startsWith('     1\tline 1\n     2\tline 2\n'));
  t.true(r.content.includes('    50\tline 50'));
  t.regex(part.content, /^ {4}10\tline 10\n {4}11\tline 11\n\[more lines: showed lines 10-11 of 50; continue with offset=12\]$/);
  t.true(budget.content.length <= 200);
  t.regex(budget.content, /truncated at character budget: showed lines 1-\d+ of 50; continue with offset=\d+\]$/);
  t.true(dir.is_error);
});

test('Read budget: a call max_chars above [read] max_chars is capped', async (t) => {
  const env = await startEngine(t, { extraToml: `${YOLO}\n[read]\nmax_chars = 300\ndefault_max_chars = 100000` });
  await writeFile(path.join(cwdOf(env), 'big.txt'), 'x'.repeat(80).concat('\n').repeat(100));
  const [def, asked] = await runCalls(env, [['Read', { file_path: 'big.txt' }], ['Read', { file_path: 'big.txt', max_chars: 100000 }]]);
  t.true(def.content.length <= 300);
  t.true(asked.content.length <= 300);
  t.regex(asked.content, /truncated at character budget/);
});

test('paths escaping the workspace are tool errors', async (t) => {
  const env = await startEngine(t, { extraToml: YOLO });
  const results = await runCalls(env, [
    ['Read', { file_path: '../../etc/passwd' }],
    ['Read', { file_path: '/etc/passwd' }],
    ['Write', { file_path: '../escape.txt', content: 'x' }],
    ['Grep', { pattern: 'root', path: '/etc' }],
  ]);
  for (const r of results) {
    t.true(r.is_error);
    t.regex(r.content, /escapes the session directory/);
  }
});

test('Edit: no match, ambiguous match, unique match, replace_all', async (t) => {
  const env = await startEngine(t, { extraToml: YOLO });
  const file = path.join(cwdOf(env), 'e.txt');
  await writeFile(file, 'foo bar foo\nbaz\n');
  const [, none, ambiguous, unique, all] = await runCalls(env, [
    ['Read', { file_path: 'e.txt' }],
    ['Edit', { file_path: 'e.txt', old_string: 'nope', new_string: 'x' }],
    ['Edit', { file_path: 'e.txt', old_string: 'foo', new_string: 'qux' }],
    ['Edit', { file_path: 'e.txt', old_string: 'baz', new_string: 'BAZ' }],
    ['Edit', { file_path: 'e.txt', old_string: 'foo', new_string: 'qux', replace_all: true }],
  ]);
  t.true(none.is_error);
  t.regex(none.content, /not found/);
  t.true(ambiguous.is_error);
  t.regex(ambiguous.content, /matches 2 times/);
  t.false(unique.is_error);
  t.false(all.is_error);
  t.regex(all.content, /replaced 2 occurrences/);
  t.is(await readFile(file, 'utf8'), 'qux bar qux\nBAZ\n');
});

test('Glob sorts by mtime and skips gitignored files; Grep modes, case, context and head_limit', async (t) => {
  const env = await startEngine(t, { extraToml: YOLO });
  const cwd = cwdOf(env);
  await mkdir(path.join(cwd, 'src/sub'), { recursive: true });
  await writeFile(path.join(cwd, '.gitignore'), 'ignored.ts\n');
  await mkdir(path.join(cwd, '.git'));
  await writeFile(path.join(cwd, 'ignored.ts'), 'Hello\n');
  await writeFile(path.join(cwd, 'src/old.ts'), 'const a = 1;\nHello there\nend\n');
  await writeFile(path.join(cwd, 'src/sub/new.ts'), 'hello world\nhello again\n');
  await writeFile(path.join(cwd, 'src/readme.md'), 'hello md\n');
  await utimes(path.join(cwd, 'src/old.ts'), new Date(2000, 1, 1), new Date(2000, 1, 1));
  const [glob, none, files, content, count, ci, limited, typed] = await runCalls(env, [
    ['Glob', { pattern: '**/*.ts' }],
    ['Glob', { pattern: '*.rs' }],
    ['Grep', { pattern: 'hello' }],
    ['Grep', { pattern: 'Hello', output_mode: 'content', '-C': 1, path: 'src' }],
    ['Grep', { pattern: 'hello', output_mode: 'count', glob: '*.ts' }],
    ['Grep', { pattern: 'HELLO', '-i': true }],
    ['Grep', { pattern: 'hello', output_mode: 'content', head_limit: 1 }],
    ['Grep', { pattern: 'hello', type: 'md' }],
  ]);
  t.is(glob.content, 'src/sub/new.ts\nsrc/old.ts');
  t.is(none.content, 'No files found');
  t.deepEqual(files.content.split('\n').sort(), ['src/readme.md', 'src/sub/new.ts']);
  t.regex(content.content, /^src\/old\.ts-1-const a = 1;\nsrc\/old\.ts:2:Hello there\nsrc\/old\.ts-3-end$/);
  t.is(count.content, 'src/sub/new.ts:2');
  t.deepEqual(ci.content.split('\n').sort(), ['src/old.ts', 'src/readme.md', 'src/sub/new.ts']);
  t.regex(limited.content, /^[^\n]+\n\[2 more lines not shown \(head_limit\)\]$/);
  t.is(typed.content, 'src/readme.md');
});
