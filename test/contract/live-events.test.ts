import test from 'ava';
import { scripts } from '../../fixtures/llm/index.ts';
import { prompt, startEngine, YOLO } from '../helpers/engine.ts';
import type { WsClient } from '../helpers/server.ts';
import { tempDir } from '../helpers/fs.ts';
import { toolCall } from './transcript-client.ts';
import { say } from '../helpers/subagents.ts';

// The workspace and session broadcasts as they reach a WebSocket LIVE (spec/clients.md E3-E8): the spec's
// top-level fields (core.md "Events", part-b.md) AND the superset clients read (the nested `workspace` /
// `session` copy, `patch`, `status`, `pending_interaction`, `last_turn_reason`, the refresh-report keys),
// on a connection that follows no session (broadcasts reach every connection), and each frame once.

/** The next frame of `type` matching `pred` on `ws`, after the frames already there. */
function next(ws: WsClient, type: string, pred: (f: any) => boolean = () => true) {
  const from = ws.frames.length;
  return ws.waitFor((f) => f.type === type && ws.frames.indexOf(f) >= from && pred(f), 30_000);
}

const WORKSPACE_KEYS = ['id', 'root', 'name', 'created_at', 'last_opened_at', 'session_count'];

test('workspace and session broadcasts carry the spec\'s top-level fields and the nested copy clients read, live (E3, E4)', async (t) => {
  const env = await startEngine(t);
  const { s } = env;
  const idle = await s.ws();
  t.teardown(() => idle.close());
  await idle.request('client_hello', { client_id: 'idle' });

  // E3: event.workspace.created, the full workspace object at top level plus `workspace`.
  const root = await tempDir();
  const created = next(idle, 'event.workspace.created');
  const reg = await s.post('/api/v1/workspaces', { root, name: 'live' });
  t.is(reg.code, 0);
  const wc = await created;
  t.is(wc.session_id, '__global__');
  for (const k of WORKSPACE_KEYS) t.true(k in wc.payload, `top-level ${k}`);
  t.deepEqual(Object.fromEntries(WORKSPACE_KEYS.map((k) => [k, wc.payload[k]])), Object.fromEntries(WORKSPACE_KEYS.map((k) => [k, reg.data[k]])), 'the REST workspace');
  t.deepEqual(wc.payload.workspace, Object.fromEntries(Object.entries(wc.payload).filter(([k]) => k !== 'workspace')), 'the nested copy');

  // Re-registering the same root: event.workspace.updated, same shape.
  const updated = next(idle, 'event.workspace.updated', (f) => f.payload.id === reg.data.id);
  t.is((await s.post('/api/v1/workspaces', { root })).code, 0);
  const wu = await updated;
  for (const k of WORKSPACE_KEYS) t.true(k in wu.payload, `updated: top-level ${k}`);
  t.is(wu.payload.name, 'live');
  t.deepEqual(wu.payload.workspace, Object.fromEntries(Object.entries(wu.payload).filter(([k]) => k !== 'workspace')));

  // E4: event.session.created, the REST session object at top level plus `session`; the workspace's count moves.
  const sessionCreated = next(idle, 'event.session.created');
  const counted = next(idle, 'event.workspace.updated', (f) => f.payload.id === reg.data.id && f.payload.session_count === 1);
  const made = await s.post('/api/v1/sessions', { workspace_id: reg.data.id, title: 'Live one' });
  t.is(made.code, 0);
  const sc = await sessionCreated;
  t.is(sc.session_id, '__global__');
  const rest = (await s.get(`/api/v1/sessions/${made.data.id}`)).data;
  for (const k of ['id', 'title', 'created_at', 'updated_at', 'busy', 'main_turn_active', 'pending_interaction', 'archived', 'metadata', 'agent_config', 'usage', 'workspace_id']) {
    t.true(k in sc.payload && k in sc.payload.session, `${k} present`);
    t.deepEqual(sc.payload[k], made.data[k], `top-level ${k}`);
    t.deepEqual(sc.payload.session[k], made.data[k], `session.${k}`);
  }
  t.is(sc.payload.id, rest.id);
  t.is((await counted).payload.workspace.session_count, 1);

  // :fork and children broadcast event.session.created the same way (core.md "Events").
  for (const [url, body] of [[`/api/v1/sessions/${made.data.id}:fork`, {}], [`/api/v1/sessions/${made.data.id}/children`, { title: 'Kid' }]] as const) {
    const again = next(idle, 'event.session.created', (f) => f.payload.id !== made.data.id);
    const r = await s.post(url, body);
    t.is(r.code, 0, url);
    const f = await again;
    t.is(f.payload.id, r.data.id);
    t.is(f.payload.title, r.data.title);
    t.deepEqual(f.payload.session, Object.fromEntries(Object.entries(f.payload).filter(([k]) => k !== 'session')), `${url}: the nested copy`);
    // event.session.archived: envelope __global__, payload {workspace_id, sessionId} (core.md).
    const archived = next(idle, 'event.session.archived');
    t.is((await s.post(`/api/v1/sessions/${r.data.id}:archive`)).code, 0);
    const a = await archived;
    t.is(a.session_id, '__global__');
    t.like(a.payload, { sessionId: r.data.id, workspace_id: reg.data.id });
  }

  // event.session.deleted (clients.md A5: `sessionId`), then event.workspace.deleted: {workspace_id, root}.
  const deleted = next(idle, 'event.session.deleted');
  t.is((await s.post(`/api/v1/sessions/${made.data.id}:delete`)).code, 0);
  t.like((await deleted).payload, { session_id: made.data.id, sessionId: made.data.id, workspace_id: reg.data.id });
  const gone = next(idle, 'event.workspace.deleted');
  t.is((await s.req('DELETE', `/api/v1/workspaces/${reg.data.id}`)).body.code, 0);
  t.like((await gone).payload, { workspace_id: reg.data.id, root: reg.data.root });
});

test('session broadcasts (meta, work, status) reach a connection that follows nothing, stamped with the session\'s own stream, with the client fields (E5, E6, E8)', async (t) => {
  const env = await startEngine(t);
  const { s, sid } = env;
  const idle = await s.ws();
  t.teardown(() => idle.close());
  await idle.request('client_hello', { client_id: 'idle' });
  const head = () => s.journal.head(sid)!;
  /** The frame is the session stream's event of that seq (E5: same seq space as the session's other frames). */
  const inSessionStream = async (f: any) => {
    t.is(f.session_id, sid, `${f.type}: stamped with the session`);
    t.is(f.epoch, head().epoch, `${f.type}: the session stream's epoch`);
    const e = (await s.eventsOf(sid, f.seq)).find((x) => x.seq === f.seq);
    t.is(e?.type, f.type, `${f.type}: seq ${f.seq} is that event in the session's stream`);
    t.is(f.payload.session_id, sid);
    t.is(f.payload.sessionId, sid);
  };

  // E8: a title through the profile: session.meta.updated with `patch`.
  const meta = next(idle, 'session.meta.updated');
  t.is((await s.post(`/api/v1/sessions/${sid}/profile`, { title: 'Renamed' })).code, 0);
  const m = await meta;
  await inSessionStream(m);
  t.like(m.payload, { title: 'Renamed', patch: { title: 'Renamed', isCustomTitle: true } });

  // E6: a turn waiting on an approval, approved, then a failed turn.
  env.llm.setScript(toolCall('w1', 'Write', { file_path: 'a.txt', content: 'a\n' }), say('written'));
  const running = next(idle, 'event.session.status_changed', (f) => f.payload.status === 'running');
  const awaiting = next(idle, 'event.session.status_changed', (f) => f.payload.status === 'awaiting_approval');
  const busy = next(idle, 'event.session.work_changed', (f) => f.payload.busy === true);
  const idleAgain = next(idle, 'event.session.status_changed', (f) => f.payload.status === 'idle');
  const workDone = next(idle, 'event.session.work_changed', (f) => f.payload.busy === false && f.payload.last_turn_reason === 'completed');
  t.is((await prompt(env, 'write a.txt')).code, 0);
  const asked = await env.ws.waitFor((f) => f.type === 'event.approval.requested');
  await awaiting;
  t.is((await s.post(`/api/v1/sessions/${sid}/approvals/${asked.payload.approval_id}`, { decision: 'approved' })).code, 0);
  const [r, a, b, i, w] = await Promise.all([running, awaiting, busy, idleAgain, workDone]);
  for (const f of [r, a, b, i, w]) await inSessionStream(f);
  t.like(r.payload, { status: 'running', previous_status: 'idle', busy: true });
  t.like(a.payload, { status: 'awaiting_approval', previous_status: 'running', pending_interaction: 'approval', busy: true });
  t.like(b.payload, { busy: true, main_turn_active: true, pending_interaction: 'none' });
  t.like(i.payload, { status: 'idle', busy: false, pending_interaction: 'none' });
  t.like(w.payload, { busy: false, main_turn_active: false, pending_interaction: 'none', last_turn_reason: 'completed' });
  t.true(typeof w.payload.workspace_id === 'string');

  env.llm.setScript(scripts.unauthorized);
  const failed = next(idle, 'event.session.work_changed', (f) => f.payload.busy === false && f.payload.last_turn_reason === 'failed');
  t.is((await prompt(env, 'this fails')).code, 0);
  await inSessionStream(await failed);

  // E5: each broadcast once per connection, also on the connection that subscribed the session.
  for (const ws of [idle, env.ws]) {
    const stamped = ws.frames.filter((f) => ['session.meta.updated', 'event.session.work_changed', 'event.session.status_changed'].includes(f.type));
    t.true(stamped.length >= 6);
    t.is(new Set(stamped.map((f) => f.seq)).size, stamped.length, 'each frame once');
  }
});

test('event.model_catalog.changed reaches every connection live with the refresh-report keys beside the daemon\'s (E7)', async (t) => {
  const env = await startEngine(t, { extraToml: YOLO });
  const idle = await env.s.ws();
  t.teardown(() => idle.close());
  await idle.request('client_hello', { client_id: 'idle' });
  const changed = next(idle, 'event.model_catalog.changed');
  const res = await env.s.req('POST', '/api/v1/providers', {
    id: 'acme', type: 'chat_compat', base_url: 'https://llm.example/v1', api_key: 'sk-x', models: [{ model: 'fast-1', max_context_size: 128000 }],
  });
  t.is(res.status, 201);
  const f = await changed;
  t.is(f.session_id, '__global__');
  t.like(f.payload, {
    reason: 'provider.created', providers: ['acme'], added: ['acme/fast-1'], removed: [], updated: [],
    changed: [{ provider_id: 'acme', provider_name: 'acme', added: ['acme/fast-1'], removed: [] }], unchanged: [], failed: [],
  });
});
