import test, { type ExecutionContext } from 'ava';
import { rm } from 'node:fs/promises';
import { tempDir } from '../helpers/fs.ts';
import { startTestServer, type TestServer, type WsClient } from '../helpers/server.ts';
import { until } from '../helpers/wait.ts';

// spec/clients.md E17: web clients read `terminal_id` and `seq` on the terminal_output envelope (the seq is what
// they give back as `since_seq` on re-attach), `terminal_id` on terminal_exit, send `session_id` on every
// terminal frame and close a terminal with `terminal_close`.

const WAIT_MS = 30_000;

async function setup(t: ExecutionContext) {
  const s = await startTestServer();
  t.teardown(() => s.stop());
  const root = await tempDir();
  t.teardown(() => rm(root, { recursive: true, force: true }));
  const sid = (await s.post('/api/v1/sessions', { metadata: { cwd: root } })).data.id as string;
  const other = (await s.post('/api/v1/sessions', { metadata: { cwd: root } })).data.id as string;
  const term = await s.post(`/api/v1/sessions/${sid}/terminals`, { shell: '/bin/sh' });
  t.is(term.code, 0);
  return { s, sid, other, tid: term.data.id as string };
}

async function client(t: ExecutionContext, s: TestServer): Promise<WsClient> {
  const c = await s.ws();
  t.teardown(() => c.close());
  return c;
}

const outputs = (c: WsClient, tid: string, from = 0) => c.frames.filter((f, i) => i >= from && f.type === 'terminal_output' && f.terminal_id === tid);
const textOf = (frames: any[]) => frames.map((f) => f.payload.data).join('');
const waitText = (c: WsClient, tid: string, needle: string, from = 0) =>
  c.waitFor((f) => f.type === 'terminal_output' && textOf(outputs(c, tid, from)).includes(needle), WAIT_MS);

test('terminal_output: terminal_id and seq on the envelope; a re-attach with since_seq gets exactly the later output', async (t) => {
  const { s, sid, tid } = await setup(t);
  const web = await client(t, s);
  const watcher = await client(t, s);
  // The watcher holds the whole stream from offset 0: the reference for what follows any seq.
  t.is((await watcher.request('terminal_attach', { session_id: sid, terminal_id: tid, since_seq: 0 })).code, 0);
  t.like(await web.request('terminal_attach', { session_id: sid, terminal_id: tid }), { code: 0, payload: { terminal_id: tid, replay_offset: 0 } });
  t.is((await web.request('terminal_input', { session_id: sid, terminal_id: tid, data: 'echo one-$((0+1))\r' })).code, 0);
  await waitText(web, tid, 'one-1');

  // Every frame: the envelope names the terminal, and seq = the offset just past its data, strictly increasing.
  const first = outputs(web, tid);
  let at = 0;
  for (const f of first) {
    t.is(f.terminal_id, f.payload.terminal_id);
    t.is(f.session_id, sid);
    t.is(f.payload.offset, at, 'contiguous');
    t.is(f.seq, f.payload.offset + f.payload.data.length);
    at = f.seq;
  }
  t.true(first.length > 0);

  // Detach at a terminal seq; more output; re-attach from that seq.
  t.like(await web.request('terminal_detach', { session_id: sid, terminal_id: tid }), { code: 0, payload: { detached: true } });
  const lastSeq = outputs(web, tid).at(-1).seq;
  t.is((await web.request('terminal_input', { session_id: sid, terminal_id: tid, data: 'echo two-$((1+1))\r' })).code, 0);
  await waitText(watcher, tid, 'two-2');
  t.false(textOf(outputs(web, tid)).includes('two-2'), 'detached: no live output');
  const mark = web.frames.length;
  const re = await web.request('terminal_attach', { session_id: sid, terminal_id: tid, since_seq: lastSeq });
  t.like(re, { code: 0, payload: { terminal_id: tid, replay_offset: lastSeq } });
  t.is((await web.request('terminal_input', { session_id: sid, terminal_id: tid, data: 'echo three-$((1+2))\r' })).code, 0);
  await waitText(web, tid, 'three-3', mark);
  // Both connections caught up to the same seq: what the web client got after lastSeq is exactly the stream after it.
  await until(() => outputs(watcher, tid).at(-1).seq === outputs(web, tid, mark).at(-1)?.seq || undefined, WAIT_MS);
  const after = outputs(web, tid, mark);
  t.is(after[0].payload.offset, lastSeq);
  t.true(after[0].payload.replay === true, 'the gap comes as replay');
  t.is(textOf(after), textOf(outputs(watcher, tid)).slice(lastSeq));
  t.false(textOf(after).includes('one-1'), 'nothing from before since_seq');
  for (let i = 1; i < after.length; i++) t.is(after[i].payload.offset, after[i - 1].seq, 'contiguous after the replay');

  // `since` (the daemon's name) wins over since_seq when both are given.
  const both = await client(t, s);
  t.like(await both.request('terminal_attach', { terminal_id: tid, since: lastSeq, since_seq: 0 }), { payload: { replay_offset: lastSeq } });
});

test('session_id on terminal frames is checked: a terminal of another session is 40414', async (t) => {
  const { s, sid, other, tid } = await setup(t);
  const web = await client(t, s);
  for (const type of ['terminal_attach', 'terminal_detach', 'terminal_input', 'terminal_resize', 'terminal_close']) {
    t.is((await web.request(type, { session_id: other, terminal_id: tid, data: 'x', cols: 10, rows: 10 })).code, 40414, type);
  }
  t.is((await s.get(`/api/v1/sessions/${other}/terminals`)).data.items.length, 0);
  t.false(web.frames.some((f) => f.type === 'terminal_output'), 'nothing attached');
  t.is((await s.get(`/api/v1/sessions/${sid}/terminals/${tid}`)).data.status, 'running', 'not closed through another session');
});

test('terminal_close kills the terminal: ack at once, terminal_exit (terminal_id on the envelope) to attached connections, closed as :close', async (t) => {
  const { s, sid, tid } = await setup(t);
  const web = await client(t, s);
  const other = await client(t, s);
  t.is((await web.request('terminal_attach', { session_id: sid, terminal_id: tid })).code, 0);
  t.is((await other.request('terminal_attach', { session_id: sid, terminal_id: tid })).code, 0);
  t.is((await web.request('terminal_input', { session_id: sid, terminal_id: tid, data: 'echo up-$((2+2))\r' })).code, 0);
  await waitText(web, tid, 'up-4');
  t.deepEqual((await web.request('terminal_close', { session_id: sid, terminal_id: tid })).payload, { terminal_id: tid, closing: true });
  for (const c of [web, other]) {
    const exit = await c.waitFor((f) => f.type === 'terminal_exit' && f.terminal_id === tid, WAIT_MS);
    t.like(exit, { session_id: sid, terminal_id: tid, payload: { terminal_id: tid, exit_code: null } });
    t.is(c.frames.filter((f) => f.type === 'terminal_exit').length, 1);
  }
  t.like((await s.get(`/api/v1/sessions/${sid}/terminals/${tid}`)).data, { status: 'exited', exit_code: null });
  t.deepEqual((await web.request('terminal_close', { session_id: sid, terminal_id: tid })).payload, { terminal_id: tid, closing: false }, 'closing twice is harmless');
  t.is((await web.request('terminal_input', { session_id: sid, terminal_id: tid, data: 'x' })).code, 40001, 'an exited terminal takes no input');
});
