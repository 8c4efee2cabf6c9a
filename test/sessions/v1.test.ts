import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import test from 'ava';
import { serverFor, type TestServer } from '../helpers/server.ts';
import { tempDir } from '../helpers/fs.ts';

async function session(s: TestServer, cwd: string, extra: Record<string, unknown> = {}) {
  const r = await s.post('/api/v1/sessions', { metadata: { cwd }, ...extra });
  if (r.code !== 0) throw new Error(`create failed: ${JSON.stringify(r)}`);
  return r.data;
}

test('create registers the workspace on first use of a cwd and returns the session object', async (t) => {
  const s = await serverFor(t);
  const cwd = await tempDir();
  const r = await s.post('/api/v1/sessions', { metadata: { cwd, tag: 'x' }, title: 'Hello' });
  t.is(r.code, 0);
  const sess = r.data;
  t.regex(sess.id, /^session_/);
  t.regex(sess.workspace_id, /^wd_[a-z0-9-]+_[0-9a-f]{12}$/);
  t.is(sess.title, 'Hello');
  t.deepEqual(sess.metadata, { cwd, tag: 'x' });
  t.false(sess.archived);
  t.false(sess.busy);
  t.false(sess.main_turn_active);
  t.is(sess.pending_interaction, 'none');
  t.deepEqual(sess.agent_config, { model: '' });
  t.deepEqual(sess.usage, { input_tokens: 0, output_tokens: 0, cache_read_tokens: 0, cache_creation_tokens: 0, context_tokens: 0 });
  t.deepEqual(sess.permission_rules, []);
  t.is(sess.message_count, 0);
  t.is(sess.last_seq, 0);
  t.is(sess.created_at, sess.updated_at);

  const again = await session(s, cwd);
  t.is(again.workspace_id, sess.workspace_id);
  t.is(again.title, '');
  const byWs = await s.post('/api/v1/sessions', { workspace_id: sess.workspace_id });
  t.is(byWs.code, 0);
  t.is(byWs.data.metadata.cwd, cwd);
  const both = await s.post('/api/v1/sessions', { workspace_id: sess.workspace_id, metadata: { cwd } });
  t.is(both.code, 0);

  const got = await s.get(`/api/v1/sessions/${sess.id}`);
  t.deepEqual(got.data, sess);
  const profile = await s.get(`/api/v1/sessions/${sess.id}/profile`);
  t.deepEqual(profile.data, sess);
});

test('create errors: neither field, cwd mismatch, missing dir, file, unknown workspace, bad title', async (t) => {
  const s = await serverFor(t);
  const cwd = await tempDir();
  const other = await tempDir();
  const file = path.join(cwd, 'f.txt');
  await writeFile(file, 'x');
  const neither = await s.post('/api/v1/sessions', {});
  t.is(neither.code, 40001);
  t.true(neither.details.some((d: any) => d.field === 'metadata.cwd'));
  const ws = (await session(s, cwd)).workspace_id;
  const mismatch = await s.post('/api/v1/sessions', { workspace_id: ws, metadata: { cwd: other } });
  t.is(mismatch.code, 40001);
  t.is(mismatch.details[0].field, 'metadata.cwd');
  t.is((await s.post('/api/v1/sessions', { metadata: { cwd: path.join(cwd, 'nope') } })).code, 40409);
  t.is((await s.post('/api/v1/sessions', { metadata: { cwd: file } })).code, 40409);
  t.is((await s.post('/api/v1/sessions', { workspace_id: 'wd_nope_000000000000' })).code, 40410);
  const badTitle = await s.post('/api/v1/sessions', { metadata: { cwd }, title: '' });
  t.is(badTitle.code, 40001);
  t.is(badTitle.details[0].field, 'title');
  const relative = await s.post('/api/v1/sessions', { metadata: { cwd: 'relative/dir' } });
  t.is(relative.code, 40001);
  const malformed = await s.req('POST', '/api/v1/sessions', '{"metadata":', { 'Content-Type': 'application/json' });
  t.is(malformed.status, 200);
  t.is(malformed.body.code, 40001);
  t.is((await s.get('/api/v1/sessions/session_unknown')).code, 40401);
});

test('v1 list: order, unpaginated window, paging with cursors, filters and their errors', async (t) => {
  const s = await serverFor(t);
  const a = await tempDir();
  const b = await tempDir();
  const ids: string[] = [];
  for (let i = 0; i < 5; i++) ids.push((await session(s, i < 3 ? a : b)).id);
  const newestFirst = [...ids].reverse();
  const all = await s.get('/api/v1/sessions');
  t.deepEqual(all.data.items.map((x: any) => x.id), newestFirst);
  t.false(all.data.has_more);

  const p1 = await s.get('/api/v1/sessions?page_size=2');
  t.deepEqual(p1.data.items.map((x: any) => x.id), newestFirst.slice(0, 2));
  t.true(p1.data.has_more);
  const p2 = await s.get(`/api/v1/sessions?page_size=2&before_id=${newestFirst[1]}`);
  t.deepEqual(p2.data.items.map((x: any) => x.id), newestFirst.slice(2, 4));
  t.true(p2.data.has_more);
  const p3 = await s.get(`/api/v1/sessions?page_size=2&before_id=${newestFirst[3]}`);
  t.deepEqual(p3.data.items.map((x: any) => x.id), newestFirst.slice(4));
  t.false(p3.data.has_more);
  const back = await s.get(`/api/v1/sessions?page_size=2&after_id=${newestFirst[4]}`);
  t.deepEqual(back.data.items.map((x: any) => x.id), newestFirst.slice(2, 4));
  t.true(back.data.has_more);

  const wsA = (await s.get(`/api/v1/sessions/${ids[0]}`)).data.workspace_id;
  const byWs = await s.get(`/api/v1/sessions?workspace_id=${wsA}`);
  t.deepEqual(byWs.data.items.map((x: any) => x.id), newestFirst.slice(2));
  const byAlias = await s.get(`/api/v1/sessions?workspace_id=${encodeURIComponent(a)}`);
  t.deepEqual(byAlias.data.items.map((x: any) => x.id), newestFirst.slice(2));
  t.is((await s.get('/api/v1/sessions?workspace_id=wd_x_000000000000')).code, 40410);

  await s.post(`/api/v1/sessions/${ids[0]}:archive`);
  const visible = await s.get('/api/v1/sessions');
  t.false(visible.data.items.some((x: any) => x.id === ids[0]));
  const withArchive = await s.get('/api/v1/sessions?include_archive=true');
  t.is(withArchive.data.items.length, 5);
  const onlyArchived = await s.get('/api/v1/sessions?archived_only=true');
  t.deepEqual(onlyArchived.data.items.map((x: any) => x.id), [ids[0]]);
  t.false(onlyArchived.data.has_more);
  t.true(onlyArchived.data.items[0].archived);
  t.truthy(onlyArchived.data.items[0].archived_at);

  t.is((await s.get('/api/v1/sessions?exclude_empty=true')).data.items.length, 0);
  t.is((await s.get('/api/v1/sessions?busy=true')).data.items.length, 0);
  t.is((await s.get('/api/v1/sessions?busy=false')).data.items.length, 4);

  const bothCursors = await s.get(`/api/v1/sessions?before_id=${ids[1]}&after_id=${ids[2]}`);
  t.is(bothCursors.code, 40001);
  t.deepEqual(bothCursors.details.map((d: any) => d.field).sort(), ['after_id', 'before_id']);
  t.is((await s.get('/api/v1/sessions?include_archive=true&archived_only=true')).code, 40001);
  for (const bad of ['page_size=0', 'page_size=101', 'page_size=abc', 'busy=maybe']) {
    const r = await s.get(`/api/v1/sessions?${bad}`);
    t.is(r.code, 40001, bad);
    t.is(r.details[0].field, bad.split('=')[0]);
  }
});

test('profile update: title wins, metadata merges, agent_config stored, goal created and controlled', async (t) => {
  const s = await serverFor(t);
  const cwd = await tempDir();
  const sess = await session(s, cwd, { metadata: { cwd, a: 1 } });
  const r = await s.post(`/api/v1/sessions/${sess.id}/profile`, {
    title: 'Renamed', metadata: { b: 2, cwd: '/elsewhere' }, agent_config: { model: 'm1', permission_mode: 'yolo', plan_mode: true, thinking: 'high' },
  });
  t.is(r.code, 0);
  t.is(r.data.title, 'Renamed');
  t.deepEqual(r.data.metadata, { cwd, a: 1, b: 2 });
  t.true(r.data.updated_at >= sess.updated_at);
  const status = await s.get(`/api/v1/sessions/${sess.id}/status`);
  t.like(status.data, { busy: false, model: 'm1', permission: 'yolo', plan_mode: true, thinking_level: 'high', dynamic_workflow_mode: false, context_tokens: 0 });

  t.is((await s.get(`/api/v1/sessions/${sess.id}/goal`)).data, null);
  await s.post(`/api/v1/sessions/${sess.id}/profile`, { agent_config: { goal_objective: 'Ship it' } });
  const goal = (await s.get(`/api/v1/sessions/${sess.id}/goal`)).data;
  t.like(goal, { objective: 'Ship it', status: 'active', turnsUsed: 0 });
  await s.post(`/api/v1/sessions/${sess.id}/profile`, { agent_config: { goal_control: 'pause' } });
  t.is((await s.get(`/api/v1/sessions/${sess.id}/goal`)).data.status, 'paused');

  const bad = await s.post(`/api/v1/sessions/${sess.id}/profile`, { title: '', agent_config: { permission_mode: 'sometimes' } });
  t.is(bad.code, 40001);
  t.deepEqual(bad.details.map((d: any) => d.field).sort(), ['agent_config.permission_mode', 'title']);
  t.is((await s.post('/api/v1/sessions/session_nope/profile', { title: 'x' })).code, 40401);
});

test('fork and children copy into new sessions; archive and restore; unknown actions', async (t) => {
  const s = await serverFor(t);
  const cwd = await tempDir();
  const src = await session(s, cwd, { title: 'Source' });
  const fork = await s.post(`/api/v1/sessions/${src.id}:fork`, {});
  t.is(fork.code, 0);
  t.is(fork.data.title, 'Fork: Source');
  t.is(fork.data.workspace_id, src.workspace_id);
  t.not(fork.data.id, src.id);
  const named = await s.post(`/api/v1/sessions/${src.id}:fork`, { title: 'Mine', metadata: { k: 'v' } });
  t.is(named.data.title, 'Mine');
  t.is(named.data.metadata.k, 'v');

  const child = await s.post(`/api/v1/sessions/${src.id}/children`, {});
  t.is(child.data.title, 'Child: Source');
  const child2 = await s.post(`/api/v1/sessions/${src.id}/children`, { title: 'Second' });
  const kids = await s.get(`/api/v1/sessions/${src.id}/children`);
  t.deepEqual(kids.data.items.map((x: any) => x.id), [child2.data.id, child.data.id]);
  t.false(kids.data.has_more);
  const page = await s.get(`/api/v1/sessions/${src.id}/children?page_size=1`);
  t.deepEqual(page.data.items.map((x: any) => x.id), [child2.data.id]);
  t.true(page.data.has_more);
  const next = await s.get(`/api/v1/sessions/${src.id}/children?page_size=1&before_id=${child2.data.id}`);
  t.deepEqual(next.data.items.map((x: any) => x.id), [child.data.id]);
  t.is((await s.get('/api/v1/sessions/session_nope/children')).code, 40401);

  const arch = await s.post(`/api/v1/sessions/${src.id}:archive`);
  t.deepEqual(arch.data, { archived: true });
  t.true((await s.get(`/api/v1/sessions/${src.id}`)).data.archived);
  const restored = await s.post(`/api/v1/sessions/${src.id}:restore`);
  t.false(restored.data.archived);
  t.is(restored.data.archived_at, undefined);

  const unknown = await s.post(`/api/v1/sessions/${src.id}:explode`);
  t.is(unknown.code, 40001);
  t.regex(unknown.msg, /unsupported action: explode/);
  t.is((await s.post(`/api/v1/sessions/${src.id}`)).code, 40001);
  t.is((await s.post('/api/v1/sessions/session_nope:archive')).code, 40401);
  t.deepEqual((await s.post(`/api/v1/sessions/${src.id}:abort`)).data, { aborted: true });
  t.is((await s.post(`/api/v1/sessions/${src.id}:compact`)).code, 40910);
  const undo = await s.post(`/api/v1/sessions/${src.id}:undo`, { count: 2 });
  t.is(undo.code, 40911);
  t.deepEqual(undo.data, { reason: 'no_turns', requestedCount: 2, undoableCount: 0 });
  t.is((await s.post(`/api/v1/sessions/${src.id}:undo`, { count: 0 })).code, 40001);
});

test('warnings flag an oversized AGENTS.md; runtime binding', async (t) => {
  const s = await serverFor(t);
  const cwd = await tempDir();
  const sess = await session(s, cwd);
  t.deepEqual((await s.get(`/api/v1/sessions/${sess.id}/warnings`)).data, { warnings: [] });
  await writeFile(path.join(cwd, 'AGENTS.md'), 'x'.repeat(64 * 1024));
  const w = (await s.get(`/api/v1/sessions/${sess.id}/warnings`)).data.warnings;
  t.is(w.length, 1);
  t.is(w[0].code, 'agents-md-oversized');
  t.is(w[0].severity, 'warning');

  t.deepEqual((await s.get(`/api/v1/sessions/${sess.id}/runtime`)).data, { workspace_id: sess.workspace_id, runtime_id: 'local' });
  t.deepEqual((await s.post(`/api/v1/sessions/${sess.id}/runtime`, { runtime_id: 'local' })).data, { workspace_id: sess.workspace_id, runtime_id: 'local' });
  t.is((await s.post(`/api/v1/sessions/${sess.id}/runtime`, { runtime_id: 'mars' })).code, 40420);
  t.is((await s.post(`/api/v1/sessions/${sess.id}/runtime`, {})).code, 40001);
});

test('session creation emits event.session.created and one workspace event: created first, updated after', async (t) => {
  const s = await serverFor(t);
  const seen = s.committed<{ type: string; payload: any }>();
  const cwd = await tempDir();
  const first = await session(s, cwd);
  const globals = () => seen.filter((e) => e.type.startsWith('event.'));
  t.deepEqual(globals().map((e) => e.type), ['event.workspace.created', 'event.session.created']);
  t.is(globals()[0].payload.session_count, 1);
  t.is(globals()[1].payload.id, first.id);
  seen.length = 0;
  await session(s, cwd);
  t.deepEqual(globals().map((e) => e.type), ['event.workspace.updated', 'event.session.created']);
  t.is(globals()[0].payload.session_count, 2);
  seen.length = 0;
  await s.post(`/api/v1/sessions/${first.id}:fork`);
  t.deepEqual(globals().map((e) => e.type), ['event.workspace.updated', 'event.session.created']);
});
