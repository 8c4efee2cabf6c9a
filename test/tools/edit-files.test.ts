import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import test from 'ava';
import { scripts } from '../../fixtures/llm/index.ts';
import { journal, prompt, startEngine, turnEnded, type EngineEnv } from '../helpers/engine.ts';

const YOLO = 'default_permission_mode = "yolo"';

type Call = [name: string, args: unknown];

/** One turn in which the model makes `calls` (ids c0, c1, ...) then answers; returns the tool.result payloads. */
async function runCalls(env: EngineEnv, calls: Call[], n = 1): Promise<any[]> {
  const base = `t${n}_`;
  env.llm.setScript({ events: calls.map(([name, args], i) => ({ tool_call: { id: `${base}${i}`, name, args } })) }, scripts.helloText);
  const r = await prompt(env, 'go');
  if (r.code !== 0) throw new Error(JSON.stringify(r));
  await turnEnded(env, n, 30_000);
  const results = (await journal(env)).filter((e) => e.type === 'tool.result' && e.payload.tool_call_id.startsWith(base));
  return calls.map((_, i) => results.find((e) => e.payload.tool_call_id === `${base}${i}`)!.payload);
}

const cwdOf = (env: EngineEnv) => env.s.sessions.get(env.sid)!.cwd;

test('Edit keeps a file\'s encoding and line endings: Latin-1, UTF-16 LE with BOM, UTF-8 with BOM and CRLF', async (t) => {
  const env = await startEngine(t, { extraToml: YOLO });
  const cwd = cwdOf(env);
  const latin = Buffer.from('caf\xe9 cr\xe8me\nna\xefve\n', 'latin1');
  const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('grüße\r\nwelt\r\n', 'utf16le')]);
  const bomCrlf = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('one\r\ntwo\r\nthree\r\n', 'utf8')]);
  await writeFile(path.join(cwd, 'latin.txt'), latin);
  await writeFile(path.join(cwd, 'utf16.txt'), utf16);
  await writeFile(path.join(cwd, 'crlf.txt'), bomCrlf);
  const results = await runCalls(env, [
    ['Read', { file_path: 'latin.txt' }],
    ['Read', { file_path: 'utf16.txt' }],
    ['Read', { file_path: 'crlf.txt' }],
    ['Edit', { file_path: 'latin.txt', old_string: 'crème', new_string: 'brûlée' }],
    ['Edit', { file_path: 'utf16.txt', old_string: 'grüße\nwelt', new_string: 'grüße\nWelt' }],
    ['Edit', { file_path: 'crlf.txt', old_string: 'two\nthree', new_string: 'TWO\nand\nthree' }],
    ['Edit', { file_path: 'latin.txt', old_string: 'naïve', new_string: 'naïve ☃' }],
  ]);
  const [, r16, , eLatin, e16, eCrlf, lossy] = results;
  t.regex(r16.content, /grüße/, 'Read shows UTF-16 text, not a binary note');
  for (const r of [eLatin, e16, eCrlf]) t.false(r.is_error, r.content);
  t.deepEqual(await readFile(path.join(cwd, 'latin.txt')), Buffer.from('caf\xe9 br\xfbl\xe9e\nna\xefve\n', 'latin1'));
  t.deepEqual(await readFile(path.join(cwd, 'utf16.txt')), Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('grüße\r\nWelt\r\n', 'utf16le')]));
  t.deepEqual(await readFile(path.join(cwd, 'crlf.txt')), Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('one\r\nTWO\r\nand\r\nthree\r\n', 'utf8')]));
  t.true(lossy.is_error, 'a character Latin-1 cannot hold is refused, not written as ?');
  t.regex(lossy.content, /cannot hold: ☃/);
});

test('Edit refuses a binary file with a clear result and leaves it untouched', async (t) => {
  const env = await startEngine(t, { extraToml: YOLO });
  const file = path.join(cwdOf(env), 'blob.bin');
  const bytes = Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0, 0, 0, 1, 0x61, 0x62, 0x63, 0, 0xff, 0xfe, 0x00, 0x10]);
  await writeFile(file, bytes);
  const [, r] = await runCalls(env, [['Read', { file_path: 'blob.bin' }], ['Edit', { file_path: 'blob.bin', old_string: 'abc', new_string: 'xyz' }]]);
  t.true(r.is_error);
  t.regex(r.content, /binary file; Edit changes text files only/);
  t.deepEqual(await readFile(file), bytes);
});

test('an Edit or Write to a file changed on disk since the model read it is refused and asks for a new Read', async (t) => {
  const env = await startEngine(t, { extraToml: YOLO });
  const cwd = cwdOf(env);
  const a = path.join(cwd, 'a.txt');
  const b = path.join(cwd, 'b.txt');
  await writeFile(a, 'alpha\n');
  await writeFile(b, 'beta\n');
  const [ra, rb, own] = await runCalls(env, [['Read', { file_path: 'a.txt' }], ['Read', { file_path: 'b.txt' }], ['Edit', { file_path: 'a.txt', old_string: 'alpha', new_string: 'alpha one' }]], 1);
  t.false(ra.is_error || rb.is_error || own.is_error, 'its own edit keeps the file known');
  // Someone else changes both files behind the model's back (a size change: no reliance on timestamps).
  await writeFile(a, 'alpha one\nadded by the user\n');
  await writeFile(b, 'beta, edited by the user\n');
  const [edit, write] = await runCalls(env, [
    ['Edit', { file_path: 'a.txt', old_string: 'alpha one', new_string: 'alpha two' }],
    ['Write', { file_path: 'b.txt', content: 'overwritten\n' }],
  ], 2);
  for (const r of [edit, write]) {
    t.true(r.is_error);
    t.regex(r.content, /has changed on disk since you last read it; Read it again/);
  }
  t.is(await readFile(a, 'utf8'), 'alpha one\nadded by the user\n');
  t.is(await readFile(b, 'utf8'), 'beta, edited by the user\n');
  const [, again, fresh] = await runCalls(env, [
    ['Read', { file_path: 'a.txt' }],
    ['Edit', { file_path: 'a.txt', old_string: 'alpha one', new_string: 'alpha two' }],
    ['Write', { file_path: 'c.txt', content: 'a new file needs no Read\n' }],
  ], 3);
  t.false(again.is_error, again.content);
  t.false(fresh.is_error, fresh.content);
  t.is(await readFile(a, 'utf8'), 'alpha two\nadded by the user\n');
});

test('read before edit: an Edit or a Write over an existing file the agent never read is refused and asks for a Read; a new file may be written, and its writer may then edit it', async (t) => {
  const env = await startEngine(t, { extraToml: YOLO });
  const cwd = cwdOf(env);
  const a = path.join(cwd, 'a.txt');
  await writeFile(a, 'alpha\n');
  const [edit, write, created, editOwn, rewriteOwn] = await runCalls(env, [
    ['Edit', { file_path: 'a.txt', old_string: 'alpha', new_string: 'omega' }],
    ['Write', { file_path: 'a.txt', content: 'overwritten\n' }],
    ['Write', { file_path: 'sub/new.txt', content: 'one\n' }],
    ['Edit', { file_path: 'sub/new.txt', old_string: 'one', new_string: 'two' }],
    ['Write', { file_path: 'sub/new.txt', content: 'three\n' }],
  ]);
  for (const r of [edit, write]) {
    t.true(r.is_error);
    t.regex(r.content, /a\.txt has not been read yet in this session; Read it first/);
  }
  t.is(await readFile(a, 'utf8'), 'alpha\n', 'nothing was changed');
  for (const r of [created, editOwn, rewriteOwn]) t.false(r.is_error, r.content);
  t.is(await readFile(path.join(cwd, 'sub', 'new.txt'), 'utf8'), 'three\n');
  // A file created by something other than the agent's own Write (here the user) must be read first too.
  await writeFile(path.join(cwd, 'other.txt'), 'x\n');
  const [unread, read, after] = await runCalls(env, [
    ['Edit', { file_path: 'other.txt', old_string: 'x', new_string: 'y' }],
    ['Read', { file_path: 'other.txt' }],
    ['Edit', { file_path: 'other.txt', old_string: 'x', new_string: 'y' }],
  ], 2);
  t.true(unread.is_error);
  t.false(read.is_error || after.is_error, after.content);
  t.is(await readFile(path.join(cwd, 'other.txt'), 'utf8'), 'y\n');
});

test('read before edit is per agent: a subagent reads a file the main agent read before it edits it', async (t) => {
  const env = await startEngine(t, { extraToml: YOLO });
  const cwd = cwdOf(env);
  await writeFile(path.join(cwd, 'shared.txt'), 'v1\n');
  env.llm.setScript(
    { events: [{ tool_call: { id: 'r0', name: 'Read', args: { file_path: 'shared.txt' } } }, { tool_call: { id: 'a0', name: 'Agent', args: { description: 'd', prompt: 'edit it' } } }] },
    { events: [{ tool_call: { id: 's0', name: 'Edit', args: { file_path: 'shared.txt', old_string: 'v1', new_string: 'v2' } } }] },
    { events: [{ text: 'could not' }] },
    scripts.helloText,
  );
  await prompt(env, 'go');
  await turnEnded(env, 1, 30_000);
  const sub = (await journal(env)).find((e) => e.type === 'tool.result' && e.payload.tool_call_id === 's0')!.payload;
  t.true(sub.is_error);
  t.regex(sub.content, /has not been read yet/);
  t.is(await readFile(path.join(cwd, 'shared.txt'), 'utf8'), 'v1\n');
});
