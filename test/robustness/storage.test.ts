import test from 'ava';
import { tempDir } from '../helpers/fs.ts';
import { serverFor, type TestServer } from '../helpers/server.ts';

/** JSON text of an object nested `n` levels deep (JSON.stringify would overflow the stack building it). */
const deepJson = (n: number) => '{"a":'.repeat(n) + '{}' + '}'.repeat(n);

async function setup(t: import('ava').ExecutionContext) {
  const s = await serverFor(t);
  const cwd = await tempDir();
  const created = await s.post('/api/v1/sessions', { metadata: { cwd } });
  t.is(created.code, 0);
  return { s, cwd, id: created.data.id as string };
}

/** Every kind of journaled write still succeeds and the list still reads. */
async function assertWritable(t: import('ava').ExecutionContext, s: TestServer, cwd: string, id: string) {
  t.is((await s.post('/api/v1/gui/store/setItem', { key: 'k', value: String(Math.random()) })).code, 0, 'GUI store');
  t.is((await s.post('/api/v1/workspaces', { root: await tempDir() })).code, 0, 'workspace register');
  t.is((await s.post(`/api/v1/sessions/${id}/profile`, { title: 'still writable' })).code, 0, 'profile');
  const extra = await s.post('/api/v1/sessions', { metadata: { cwd } });
  t.is(extra.code, 0, 'session create');
  const list = await s.req('GET', '/api/v1/sessions');
  t.is(list.status, 200);
  t.is(list.body.code, 0);
  return { list: list.body.data.items as Array<{ id: string }>, extraId: extra.data.id as string };
}

const deepBodies: Array<[string, (id: string, cwd: string) => [string, string]]> = [
  ['POST children metadata', (id) => [`/api/v1/sessions/${id}/children`, `{"metadata":${deepJson(10_000)}}`]],
  ['POST :fork metadata', (id) => [`/api/v1/sessions/${id}:fork`, `{"metadata":${deepJson(10_000)}}`]],
  ['POST profile metadata', (id) => [`/api/v1/sessions/${id}/profile`, `{"metadata":${deepJson(10_000)}}`]],
  ['POST sessions agent_config', (_id, cwd) => ['/api/v1/sessions', `{"metadata":{"cwd":${JSON.stringify(cwd)}},"agent_config":${deepJson(10_000)}}`]],
];

for (const [name, make] of deepBodies) {
  test(`${name} nested 10,000 deep: 40001 naming the field and the limit; every write and list read still work, no half-made session`, async (t) => {
    const { s, cwd, id } = await setup(t);
    const [url, body] = make(id, cwd);
    const r = await s.req('POST', url, body);
    t.is(r.status, 200);
    t.is(r.body.code, 40001);
    const field = name.split(' ').pop()!;
    t.like(r.body.details[0], { field, limit: 32 });
    const { list, extraId } = await assertWritable(t, s, cwd, id);
    t.deepEqual(list.map((x) => x.id).sort(), [id, extraId].sort());
  });
}

test('free-form JSON: 32 levels are accepted, 33 refused; over 64 KiB or 1,000 entries refused', async (t) => {
  const { s, id } = await setup(t);
  const at = (depth: number) => s.req('POST', `/api/v1/sessions/${id}/profile`, `{"metadata":{"x":${deepJson(depth - 2)}}}`);
  t.is((await at(32)).body.code, 0);
  const over = await at(33);
  t.is(over.body.code, 40001);
  t.like(over.body.details[0], { field: 'metadata', limit: 32 });
  const big = await s.post(`/api/v1/sessions/${id}/profile`, { metadata: { x: 'y'.repeat(64 * 1024) } });
  t.is(big.code, 40001);
  t.like(big.details[0], { field: 'metadata', limit: 65536 });
  const many = await s.post(`/api/v1/sessions/${id}/profile`, { metadata: { x: Array.from({ length: 1001 }, () => 0) } });
  t.is(many.code, 40001);
  t.like(many.details[0], { field: 'metadata', limit: 1000 });
});

test('profile metadata is bounded once merged with what is stored; a fork likewise', async (t) => {
  const { s, id } = await setup(t);
  const half = 'y'.repeat(40 * 1024);
  t.is((await s.post(`/api/v1/sessions/${id}/profile`, { metadata: { a: half } })).code, 0);
  const merged = await s.post(`/api/v1/sessions/${id}/profile`, { metadata: { b: half } });
  t.is(merged.code, 40001);
  t.like(merged.details[0], { field: 'metadata', limit: 65536 });
  t.regex(merged.details[0].message, /merged/);
  const fork = await s.post(`/api/v1/sessions/${id}:fork`, { metadata: { b: half } });
  t.is(fork.code, 40001);
  t.like(fork.details[0], { field: 'metadata', limit: 65536 });
  t.is((await s.get(`/api/v1/sessions/${id}`)).data.metadata.a, half);
  t.is((await s.get('/api/v1/sessions')).data.items.length, 1);
});

test('titles are 1-1000 characters on create, profile, fork and children', async (t) => {
  const { s, cwd, id } = await setup(t);
  const long = 'x'.repeat(1001);
  for (const [url, body] of [
    ['/api/v1/sessions', { metadata: { cwd }, title: long }],
    [`/api/v1/sessions/${id}/profile`, { title: long }],
    [`/api/v1/sessions/${id}:fork`, { title: long }],
    [`/api/v1/sessions/${id}/children`, { title: long }],
  ] as const) {
    const r = await s.post(url, body);
    t.is(r.code, 40001, url);
    t.like(r.details[0], { field: 'title', limit: 1000 });
  }
  t.is((await s.post(`/api/v1/sessions/${id}/profile`, { title: 'x'.repeat(1000) })).code, 0);
});
