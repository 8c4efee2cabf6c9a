import test, { type ExecutionContext } from 'ava';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { scratchDir, writeFiles } from '../helpers/fs.ts';
import { serverFor } from '../helpers/server.ts';

async function root(t: ExecutionContext): Promise<string> {
  const dir = await scratchDir(t, 'svc-code-bounds-');
  await writeFiles(dir, ['src/a.ts', 'src/b.ts', 'docs/readme.md', 'aaaa/aaaa/aaaa.txt']);
  return dir;
}

async function setup(t: ExecutionContext) {
  const s = await serverFor(t);
  const dir = await root(t);
  const id = (await s.post('/api/v1/sessions', { metadata: { cwd: dir } })).data.id as string;
  return { s, dir, id };
}

test('fs:search, fs:suggest: a query over 4,096 characters is 40001 naming query and the limit; a maximal one answers while healthz does', async (t) => {
  const { s, dir, id } = await setup(t);
  const huge = 'a'.repeat(1024 * 1024);
  for (const [url, body] of [
    [`/api/v1/sessions/${id}/fs:search`, {}],
    ['/api/v1/workspace/fs:search', { workspace: dir }],
    ['/api/v1/workspace/fs:suggest', { workspace: dir }],
  ] as const) {
    const r = await s.post(url, { ...body, query: huge });
    t.is(r.code, 40001, url);
    t.like(r.details[0], { field: 'query', limit: 4096 });
    const [max, health] = await Promise.all([s.post(url, { ...body, query: 'a'.repeat(4096) }), s.get('/api/v1/healthz')]);
    t.is(max.code, 0, url);
    t.deepEqual(max.data.items, []);
    t.true(health.data.ok);
  }
});

test('paths over 4,096 bytes are 40001 before any file-system call; a name over 255 bytes is 40001, not 50001', async (t) => {
  const { s, id } = await setup(t);
  const long = 'a/'.repeat(2500);
  const multibyte = 'é'.repeat(2100); // 2,100 characters, 4,200 bytes
  const name = 'n'.repeat(300);
  const actions: Array<[string, Record<string, unknown>]> = [
    ['read', {}], ['stat', {}], ['list', {}], ['mkdir', {}], ['diff', {}], ['open', {}], ['open-in', { app_id: 'editor_a' }], ['reveal', {}],
  ];
  for (const [action, extra] of actions) {
    const url = `/api/v1/sessions/${id}/fs:${action}`;
    for (const p of [long, multibyte]) {
      const r = await s.post(url, { ...extra, path: p });
      t.is(r.code, 40001, `${action} ${p.length}`);
      t.like(r.details[0], { field: 'path', limit: 4096 });
    }
    const r = await s.post(url, { ...extra, path: `${name}/x` });
    t.not(r.code, 50001, `${action}: ${JSON.stringify(r)}`);
    if (!['diff', 'list', 'mkdir'].includes(action)) t.true([40001, 40409].includes(r.code), `${action}: ${r.code}`);
  }
  const many = await s.post(`/api/v1/sessions/${id}/fs:stat_many`, { paths: ['ok', long] });
  t.is(many.code, 40001);
  t.like(many.details[0], { field: 'paths.1', limit: 4096 });
  const download = await s.req('GET', `/api/v1/sessions/${id}/fs/${'x'.repeat(4097)}:download`);
  t.is(download.body.code, 40001);
  const host = await s.req('GET', `/api/v1/fs:browse?path=/${'x'.repeat(300)}`);
  t.not(host.body.code, 50001);
});

test('fs:grep: a pattern over 4,096 characters and oversize glob lists are 40001; a maximal pattern runs', async (t) => {
  const { s, id } = await setup(t);
  const grep = (body: object) => s.post(`/api/v1/sessions/${id}/fs:grep`, body);
  const big = await grep({ pattern: 'x'.repeat(1024 * 1024) });
  t.is(big.code, 40001);
  t.like(big.details[0], { field: 'pattern', limit: 4096 });
  const globs = await grep({ pattern: 'x', include_globs: Array.from({ length: 101 }, (_, i) => `*.${i}`) });
  t.like(globs.details[0], { field: 'include_globs', limit: 100 });
  const glob = await grep({ pattern: 'x', exclude_globs: ['g'.repeat(1025)] });
  t.like(glob.details[0], { field: 'exclude_globs.0', limit: 1024 });
  const max = await grep({ pattern: 'x'.repeat(4096) });
  t.is(max.code, 0);
  t.deepEqual(max.data.files, []);
});

test('globs are matched in linear time: a backtracking glob over a 255-character name answers (it froze the event loop)', async (t) => {
  const { s, dir, id } = await setup(t);
  const name = 'a'.repeat(255);
  t.is((await s.post(`/api/v1/sessions/${id}/fs:mkdir`, { path: name })).code, 0);
  await writeFile(path.join(dir, name, 'x.txt'), 'x\n');
  const glob = `${'*a'.repeat(24)}*b`;
  const list = await s.post(`/api/v1/sessions/${id}/fs:list`, { exclude_globs: [glob] });
  t.is(list.code, 0);
  t.true(list.data.items.some((i: { name: string }) => i.name === name));
  const search = await s.post('/api/v1/workspace/fs:search', { workspace: dir, query: 'x', exclude_globs: [glob] });
  t.is(search.code, 0);
  t.true(search.data.items.some((i: { path: string }) => i.path === `${name}/x.txt`));
  const braces = await s.post(`/api/v1/sessions/${id}/fs:list`, { exclude_globs: ['{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}'] });
  t.is(braces.code, 40001);
  t.is(braces.details[0].field, 'exclude_globs');
});
