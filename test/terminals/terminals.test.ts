import test, { type ExecutionContext } from 'ava';
import { mkdir, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import type { ServeOptions } from '../../src/app/options.ts';
import { tempDir } from '../helpers/fs.ts';
import { connectWs, startTestServer, TEST_TOKEN, type TestServer, type WsClient } from '../helpers/server.ts';
import { until } from '../helpers/wait.ts';

const WAIT_MS = 30_000;
const SH = '/bin/sh';

interface Fixture {
  s: TestServer;
  root: string;
  sessionId: string;
}

async function setup(t: ExecutionContext, options: Partial<ServeOptions> = {}): Promise<Fixture> {
  const s = await startTestServer({ options });
  t.teardown(() => s.stop());
  const root = await tempDir();
  t.teardown(() => rm(root, { recursive: true, force: true }));
  const res = await s.post('/api/v1/sessions', { metadata: { cwd: root } });
  t.is(res.code, 0);
  return { s, root, sessionId: res.data.id };
}

async function client(t: ExecutionContext, s: TestServer): Promise<WsClient> {
  const c = await s.ws();
  t.teardown(() => c.close());
  return c;
}

const termUrl = (f: Fixture, id = '') => `/api/v1/sessions/${f.sessionId}/terminals${id ? `/${id}` : ''}`;

async function openTerminal(t: ExecutionContext, f: Fixture, body: Record<string, unknown> = { shell: SH }) {
  const res = await f.s.post(termUrl(f), body);
  t.is(res.code, 0, JSON.stringify(res));
  return res.data;
}

/** Live and replayed output of a terminal received by `c`, in order. */
function outputFrames(c: WsClient, terminalId: string, replay?: boolean): any[] {
  return c.frames.filter((f) => f.type === 'terminal_output' && f.payload.terminal_id === terminalId && (replay === undefined || !!f.payload.replay === replay));
}

const textOf = (frames: any[]) => frames.map((f) => f.payload.data).join('');

function waitOutput(c: WsClient, terminalId: string, needle: string | RegExp): Promise<string> {
  const has = () => {
    const text = textOf(outputFrames(c, terminalId));
    return typeof needle === 'string' ? text.includes(needle) : needle.test(text);
  };
  return c.waitFor((f) => f.type === 'terminal_output' && has(), WAIT_MS).then(() => textOf(outputFrames(c, terminalId)));
}

async function attach(t: ExecutionContext, c: WsClient, terminalId: string, since?: number) {
  const ack = await c.request('terminal_attach', since === undefined ? { terminal_id: terminalId } : { terminal_id: terminalId, since });
  t.is(ack.code, 0, JSON.stringify(ack));
  return ack;
}

async function input(t: ExecutionContext, c: WsClient, terminalId: string, data: string) {
  const ack = await c.request('terminal_input', { terminal_id: terminalId, data });
  t.is(ack.code, 0, JSON.stringify(ack));
}

/** The shell's pid, asked of the shell itself. */
async function shellPid(t: ExecutionContext, c: WsClient, terminalId: string): Promise<number> {
  await input(t, c, terminalId, 'echo pid-$$-end\r');
  const text = await waitOutput(c, terminalId, /pid-\d+-end/);
  return Number(/pid-(\d+)-end/.exec(text)![1]);
}

/** A client subscribed to the session and attached to a new terminal, and the pid of its shell. */
async function subscribedShell(t: ExecutionContext, f: Fixture) {
  const c = await client(t, f.s);
  t.is((await c.request('subscribe', { session_ids: [f.sessionId] })).code, 0);
  const term = await openTerminal(t, f);
  await attach(t, c, term.id);
  return { c, term, pid: await shellPid(t, c, term.id) };
}

/** Alive and not a zombie waiting for its new parent to reap it. */
async function alive(pid: number): Promise<boolean> {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
  return stat !== '' && stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
}

test('echo round trip over the WebSocket, listed and journaled', async (t) => {
  const f = await setup(t);
  const c = await client(t, f.s);
  t.is((await c.request('subscribe', { session_ids: [f.sessionId] })).code, 0);
  const term = await openTerminal(t, f, {});
  t.regex(term.id, /^term_[0-9A-HJKMNP-TV-Z]{26}$/);
  t.like(term, { session_id: f.sessionId, cwd: '.', cols: 80, rows: 24, status: 'running' });
  t.is(term.shell, process.env.SHELL || '/bin/bash');
  t.false('exit_code' in term);
  await attach(t, c, term.id);
  await input(t, c, term.id, 'echo hello-$((1+1))\r');
  await waitOutput(c, term.id, 'hello-2');
  const frames = outputFrames(c, term.id, false);
  for (let i = 1; i < frames.length; i++) t.is(frames[i].payload.offset, frames[i - 1].payload.offset + frames[i - 1].payload.data.length);
  const opened = await c.waitFor((e) => e.type === 'terminal.opened' && e.session_id === f.sessionId, WAIT_MS);
  t.is(opened.payload.terminal.id, term.id);
  const list = await f.s.get(termUrl(f));
  t.deepEqual(list.data.items.map((x: any) => x.id), [term.id]);
  t.is((await f.s.get(termUrl(f, term.id))).data.status, 'running');
});

test('resize reaches the PTY (stty size) and the object', async (t) => {
  const f = await setup(t);
  const c = await client(t, f.s);
  const term = await openTerminal(t, f, { shell: SH, cols: 90, rows: 20 });
  await attach(t, c, term.id);
  await input(t, c, term.id, 'stty size\r');
  await waitOutput(c, term.id, '20 90');
  const ack = await c.request('terminal_resize', { terminal_id: term.id, cols: 100, rows: 30 });
  t.like(ack, { code: 0, payload: { terminal_id: term.id, cols: 100, rows: 30 } });
  await input(t, c, term.id, 'stty size\r');
  await waitOutput(c, term.id, '30 100');
  t.like((await f.s.get(termUrl(f, term.id))).data, { cols: 100, rows: 30 });
  const bad = await c.request('terminal_resize', { terminal_id: term.id, cols: 0, rows: 1.5 });
  t.is(bad.code, 40001);
  t.deepEqual(bad.details.map((d: any) => d.field).sort(), ['payload.cols', 'payload.rows']);
});

test('detach stops output; re-attach replays the scrollback, from `since` when given', async (t) => {
  const f = await setup(t);
  const c1 = await client(t, f.s);
  const c2 = await client(t, f.s);
  const term = await openTerminal(t, f);
  await attach(t, c1, term.id);
  await attach(t, c2, term.id);
  await input(t, c1, term.id, 'echo one-$((0+1))\r');
  await waitOutput(c1, term.id, 'one-1');
  await waitOutput(c2, term.id, 'one-1');
  const detach = await c1.request('terminal_detach', { terminal_id: term.id });
  t.like(detach, { code: 0, payload: { terminal_id: term.id, detached: true } });
  const seen = outputFrames(c1, term.id);
  const last = seen[seen.length - 1].payload;
  const since = last.offset + last.data.length;
  await input(t, c1, term.id, 'echo two-$((1+1))\r');
  await waitOutput(c2, term.id, 'two-2');
  t.false(textOf(outputFrames(c1, term.id)).includes('two-2'), 'no live output after detach');

  const mark = c1.frames.length;
  const partial = await attach(t, c1, term.id, since);
  t.is(partial.payload.replay_offset, since);
  await waitOutput(c1, term.id, 'two-2');
  const replayed = outputFrames(c1, term.id, true).filter((x) => c1.frames.indexOf(x) >= mark);
  t.is(replayed[0].payload.offset, since);
  t.false(textOf(replayed).includes('one-1'), 'since skips what the client already had');

  const c3 = await client(t, f.s);
  const full = await attach(t, c3, term.id);
  t.is(full.payload.replay_offset, 0);
  await waitOutput(c3, term.id, 'two-2');
  const all = textOf(outputFrames(c3, term.id, true));
  t.true(all.includes('one-1') && all.includes('two-2'));
});

test('the scrollback is a bounded ring: old output is dropped, offsets keep counting', async (t) => {
  const f = await setup(t);
  const c = await client(t, f.s);
  const term = await openTerminal(t, f);
  await attach(t, c, term.id);
  await input(t, c, term.id, "head -c 300000 /dev/zero | tr '\\0' x; echo; echo done-$((6*7))\r");
  await waitOutput(c, term.id, 'done-42');
  const live = outputFrames(c, term.id, false);
  t.true(live.length < 300, `output is batched (${live.length} frames)`);
  const late = await client(t, f.s);
  const ack = await attach(t, late, term.id, 0);
  t.true(ack.payload.replay_offset > 0, 'the start of the output is gone');
  t.true(ack.payload.end_offset - ack.payload.replay_offset <= 256 * 1024);
  await waitOutput(late, term.id, 'done-42');
  const replay = outputFrames(late, term.id, true);
  t.is(replay[0].payload.offset, ack.payload.replay_offset);
  t.true(replay.length > 1, 'a large replay spans several frames');
});

test('exit 3 sends terminal_exit; the object and the journal record it', async (t) => {
  const f = await setup(t);
  const c = await client(t, f.s);
  t.is((await c.request('subscribe', { session_ids: [f.sessionId] })).code, 0);
  const term = await openTerminal(t, f);
  await attach(t, c, term.id);
  await input(t, c, term.id, 'echo bye-$((2+2)); exit 3\r');
  const exit = await c.waitFor((x) => x.type === 'terminal_exit' && x.payload.terminal_id === term.id, WAIT_MS);
  t.is(exit.payload.exit_code, 3);
  t.truthy(Date.parse(exit.payload.exited_at));
  t.true(textOf(outputFrames(c, term.id)).includes('bye-4'), 'last output arrives before terminal_exit');
  const got = (await f.s.get(termUrl(f, term.id))).data;
  t.like(got, { status: 'exited', exit_code: 3, exited_at: exit.payload.exited_at });
  const ev = await c.waitFor((e) => e.type === 'terminal.exited' && e.session_id === f.sessionId, WAIT_MS);
  t.like(ev.payload.terminal, { id: term.id, status: 'exited', exit_code: 3 });
  t.is((await c.request('terminal_input', { terminal_id: term.id, data: 'x' })).code, 40001);
  const late = await client(t, f.s);
  await attach(t, late, term.id);
  const replayExit = await late.waitFor((x) => x.type === 'terminal_exit', WAIT_MS);
  t.is(replayExit.payload.exit_code, 3);
  t.true(textOf(outputFrames(late, term.id, true)).includes('bye-4'));
  t.deepEqual((await f.s.get(termUrl(f))).data.items.map((x: any) => x.status), ['exited']);
});

test(':close kills the shell and its jobs, then answers closed:true', async (t) => {
  const f = await setup(t);
  const { c, term, pid } = await subscribedShell(t, f);
  await input(t, c, term.id, 'nohup sleep 300 >/dev/null 2>&1 & echo bg-$!-end\r');
  const bg = Number(/bg-(\d+)-end/.exec(await waitOutput(c, term.id, /bg-\d+-end/))![1]);
  t.true(await alive(bg));
  const res = await f.s.post(termUrl(f, `${term.id}:close`));
  t.deepEqual(res.data, { closed: true });
  t.throws(() => process.kill(pid, 0), { code: 'ESRCH' });
  t.true(await until(async () => !(await alive(bg)), WAIT_MS), 'the nohup job is gone too');
  t.like((await f.s.get(termUrl(f, term.id))).data, { status: 'exited', exit_code: null });
  const ev = await c.waitFor((e) => e.type === 'terminal.closed' && e.session_id === f.sessionId, WAIT_MS);
  t.like(ev.payload, { reason: 'request', terminal: { id: term.id, exit_code: null } });
  t.deepEqual((await f.s.post(termUrl(f, `${term.id}:close`))).data, { closed: true }, 'closing twice is harmless');
  t.is((await f.s.post(termUrl(f, `${term.id}:open`))).code, 40001);
});

test('cwd is relative to the workspace root and confined to it', async (t) => {
  const f = await setup(t);
  await mkdir(path.join(f.root, 'sub', 'inner'), { recursive: true });
  const c = await client(t, f.s);
  const term = await openTerminal(t, f, { shell: SH, cwd: 'sub/inner' });
  t.is(term.cwd, path.join('sub', 'inner'));
  await attach(t, c, term.id);
  await input(t, c, term.id, 'echo "PWD=$(pwd)"\r');
  await waitOutput(c, term.id, `PWD=${path.join(f.root, 'sub', 'inner')}`);

  const absolute = await f.s.post(termUrl(f), { cwd: f.root });
  t.is(absolute.code, 40001);
  t.is(absolute.details[0].field, 'cwd');
  t.is((await f.s.post(termUrl(f), { cwd: '../..' })).code, 41304);
  t.is((await f.s.post(termUrl(f), { cwd: 'missing' })).code, 40409);
  t.is((await f.s.post(termUrl(f), { shell: '/nonexistent/shell' })).code, 40001);
  t.is((await f.s.post(termUrl(f), { shell: 'bin/sh' })).code, 40001);
  t.is((await f.s.post(termUrl(f), { cols: 0 })).code, 40001);
  t.is((await f.s.post(termUrl(f), { runtime_id: 'mars' })).code, 40420);
  const byName = await openTerminal(t, f, { shell: 'sh' });
  t.true(path.isAbsolute(byName.shell));
});

test('unknown terminals and sessions', async (t) => {
  const f = await setup(t);
  const c = await client(t, f.s);
  const ghost = 'term_01HZZZZZZZZZZZZZZZZZZZZZZZ';
  t.is((await f.s.get(termUrl(f, ghost))).code, 40414);
  t.is((await f.s.post(termUrl(f, `${ghost}:close`))).code, 40414);
  for (const type of ['terminal_attach', 'terminal_detach', 'terminal_input', 'terminal_resize']) {
    const ack = await c.request(type, { terminal_id: ghost, data: 'x', cols: 1, rows: 1 });
    t.is(ack.code, 40414, type);
  }
  t.is((await c.request('terminal_input', { terminal_id: ghost })).code, 40001);
  const other = '/api/v1/sessions/session_nope/terminals';
  t.is((await f.s.get(other)).code, 40401);
  t.is((await f.s.post(other, {})).code, 40401);
  t.is((await f.s.get(`${other}/${ghost}`)).code, 40401);
  const term = await openTerminal(t, f);
  const second = await f.s.post('/api/v1/sessions', { metadata: { cwd: f.root } });
  t.is((await f.s.get(`/api/v1/sessions/${second.data.id}/terminals/${term.id}`)).code, 40414, 'a terminal belongs to one session');
});

test('absent on a non-loopback bind unless allowRemoteTerminals', async (t) => {
  for (const allow of [false, true]) {
    const s = await startTestServer({ options: { host: '0.0.0.0', allowRemoteTerminals: allow } });
    t.teardown(() => s.stop());
    const local = `http://127.0.0.1:${s.server.port}`;
    const root = await tempDir();
    t.teardown(() => rm(root, { recursive: true, force: true }));
    const call = async (method: string, url: string, body?: unknown) => {
      const res = await fetch(local + url, {
        method, headers: { Authorization: `Bearer ${TEST_TOKEN}`, 'Content-Type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: res.status, body: (await res.json()) as any };
    };
    const session = await call('POST', '/api/v1/sessions', { metadata: { cwd: root } });
    const url = `/api/v1/sessions/${session.body.data.id}/terminals`;
    const created = await call('POST', url, { shell: SH });
    const listed = await call('GET', url);
    const c = await connectWs(local, undefined, { Authorization: `Bearer ${TEST_TOKEN}` });
    t.teardown(() => c.close());
    const ack = await c.request('terminal_attach', { terminal_id: created.body.data?.id ?? 'term_x' });
    if (allow) {
      t.is(created.body.code, 0);
      t.is(listed.body.data.items.length, 1);
      t.is(ack.code, 0);
    } else {
      t.is(created.status, 404);
      t.is(listed.status, 404);
      t.is(ack.code, 40001);
    }
  }
});

test('archiving a session ends its terminals', async (t) => {
  const f = await setup(t);
  const { c, term, pid } = await subscribedShell(t, f);
  t.is((await f.s.post(`/api/v1/sessions/${f.sessionId}:archive`)).code, 0);
  const ev = await c.waitFor((e) => e.type === 'terminal.closed' && e.session_id === f.sessionId, WAIT_MS);
  t.like(ev.payload, { reason: 'session_archived', terminal: { id: term.id, status: 'exited' } });
  t.throws(() => process.kill(pid, 0), { code: 'ESRCH' });
  await c.waitFor((x) => x.type === 'terminal_exit' && x.payload.terminal_id === term.id, WAIT_MS);
});

test('stopping the server ends every terminal and journals it; terminals are not restored', async (t) => {
  const root = await tempDir();
  t.teardown(() => rm(root, { recursive: true, force: true }));
  const s = await startTestServer({ keepHome: true });
  t.teardown(() => rm(s.home, { recursive: true, force: true }));
  const sessionId = (await s.post('/api/v1/sessions', { metadata: { cwd: root } })).data.id;
  const f = { s, root, sessionId };
  const c = await s.ws();
  const pids: number[] = [];
  for (let i = 0; i < 2; i++) {
    const term = await openTerminal(t, f);
    await attach(t, c, term.id);
    pids.push(await shellPid(t, c, term.id));
  }
  const s2 = await s.restart();
  t.teardown(() => s2.stop());
  for (const pid of pids) t.throws(() => process.kill(pid, 0), { code: 'ESRCH' });
  const events = await s2.eventsOf(sessionId);
  const closed = events.filter((e) => e.type === 'terminal.closed');
  t.deepEqual(closed.map((e: any) => e.payload.reason), ['server_stopped', 'server_stopped']);
  t.deepEqual((await s2.get(`/api/v1/sessions/${sessionId}/terminals`)).data.items, []);
});

test('the AsyncAPI document describes the terminal frames and events', async (t) => {
  const f = await setup(t);
  const doc = (await f.s.req('GET', '/asyncapi.json')).body as any;
  for (const name of ['terminal_attach', 'terminal_detach', 'terminal_input', 'terminal_resize', 'terminal_output', 'terminal_exit', 'terminal.opened', 'terminal.exited', 'terminal.closed']) {
    t.truthy(doc.components.messages[name], name);
  }
  t.deepEqual(doc.components.messages.terminal_output.payload.properties.type, { const: 'terminal_output' });
});
