import test from 'ava';
import { rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { newSession, serverFor, startTestServer, tempHome, type TestServer } from '../helpers/server.ts';
import type { PermissionDecision } from '../../src/permissions/types.ts';
import { until } from '../helpers/wait.ts';

const CTX = { agentId: 'main', readOnly: false, turnId: 'turn_1' };
const bash = (command: string, id = 'call_1') => ({ id, name: 'Bash', input: { command } });
const url = (sid: string) => `/api/v1/sessions/${sid}/approvals`;

async function setup(t: any): Promise<{ s: TestServer; sid: string }> {
  const s = await serverFor(t);
  return { s, sid: await newSession(s) };
}

/** Waits until the session has `n` pending approvals (the request is journaled asynchronously). */
function pending(s: TestServer, sid: string, n = 1) {
  return until(async () => {
    const res = await s.get(`${url(sid)}?status=pending`);
    return res.data.items.length >= n && res.data.items;
  });
}

async function sessionEvents(s: TestServer, sid: string, type: string) {
  return (await s.eventsOf(sid)).filter((e) => e.type === type);
}

test('a pending approval is listed, visible on the session and in /snapshot, and approving allows the call', async (t) => {
  const { s, sid } = await setup(t);
  const decided = s.permissions.check(sid, bash('npm test'), CTX, new AbortController().signal);
  const [item] = await pending(s, sid);
  t.like(item, { session_id: sid, agent_id: 'main', turn_id: 'turn_1', tool_call_id: 'call_1', tool_name: 'Bash', tool_input_display: 'npm test' });
  t.is(Date.parse(item.expires_at) - Date.parse(item.created_at), 24 * 3600 * 1000);
  t.is((await s.get(`/api/v1/sessions/${sid}`)).data.pending_interaction, 'approval');
  t.is((await s.get(`/api/v1/sessions/${sid}/snapshot`)).data.pending_approvals[0].approval_id, item.approval_id);
  const res = await s.post(`${url(sid)}/${item.approval_id}`, { decision: 'approved' });
  t.is(res.code, 0);
  t.true(res.data.resolved);
  t.truthy(Date.parse(res.data.resolved_at));
  t.deepEqual(await decided, { decision: 'allow' });
  t.is((await s.get(`/api/v1/sessions/${sid}`)).data.pending_interaction, 'none');
  t.deepEqual((await s.get(`${url(sid)}?status=pending`)).data.items, []);
  t.is((await sessionEvents(s, sid, 'event.approval.requested')).length, 1);
  t.like((await sessionEvents(s, sid, 'event.approval.resolved'))[0].payload, { approval_id: item.approval_id, decision: 'approved' });
  // On the session's own stream (spec/clients.md E5), with the status clients read (E6).
  const status = (await s.eventsOf(sid)).filter((e) => e.type === 'event.session.status_changed' && (e.payload as { pending_interaction: string }).pending_interaction !== undefined);
  const seen = status.map((e) => e.payload as { pending_interaction: string; status: string; previous_status?: string });
  const asked = seen.findIndex((p) => p.pending_interaction === 'approval');
  t.is(seen[asked]?.status, 'awaiting_approval');
  t.is(seen[asked + 1]?.pending_interaction, 'none');
  t.is(seen[asked + 1]?.previous_status, 'awaiting_approval');
  t.not(seen[asked + 1]?.status, 'awaiting_approval');
});

test('rejecting with feedback denies with the feedback; a second answer is 40902 with data', async (t) => {
  const { s, sid } = await setup(t);
  const decided = s.permissions.check(sid, { id: 'c', name: 'Write', input: { file_path: 'a.txt', content: 'x' } }, CTX);
  const [item] = await pending(s, sid);
  t.is(item.tool_input_display, 'a.txt');
  t.is((await s.post(`${url(sid)}/${item.approval_id}`, { decision: 'rejected', feedback: 'use b.txt' })).code, 0);
  const d = (await decided) as Extract<PermissionDecision, { decision: 'deny' }>;
  t.is(d.decision, 'deny');
  t.regex(d.message, /use b\.txt/);
  const again = await s.post(`${url(sid)}/${item.approval_id}`, { decision: 'approved' });
  t.is(again.code, 40902);
  t.deepEqual(again.data, { resolved: false });
});

test('scope session remembers the approved call for the session', async (t) => {
  const { s, sid } = await setup(t);
  const perm = s.permissions;
  const first = perm.check(sid, bash('make build'), CTX);
  const [item] = await pending(s, sid);
  await s.post(`${url(sid)}/${item.approval_id}`, { decision: 'approved', scope: 'session', selected_label: 'Yes' });
  t.deepEqual(await first, { decision: 'allow' });
  t.deepEqual(await perm.check(sid, bash('make build', 'call_2'), CTX), { decision: 'allow' });
  const other = perm.check(sid, bash('make clean', 'call_3'), CTX);
  const [next] = await pending(s, sid);
  t.is(next.tool_input_display, 'make clean', 'a different command still asks');
  await s.post(`${url(sid)}/${next.approval_id}`, { decision: 'cancelled' });
  t.is((await other).decision, 'deny');
});

test('read-only tools and yolo mode (set through the profile) do not ask', async (t) => {
  const { s, sid } = await setup(t);
  const perm = s.permissions;
  t.deepEqual(await perm.check(sid, { id: 'r', name: 'Read', input: { file_path: 'x' } }, { ...CTX, readOnly: true }), { decision: 'allow' });
  await s.post(`/api/v1/sessions/${sid}/profile`, { agent_config: { permission_mode: 'yolo' } });
  t.is(perm.modeOf(sid), 'yolo');
  t.deepEqual(await perm.check(sid, bash('rm -rf /'), CTX), { decision: 'allow' });
});

test('errors: status must be pending, unknown session 40401, unknown approval 40404, bad decision 40001', async (t) => {
  const { s, sid } = await setup(t);
  t.is((await s.get(url(sid))).code, 40001);
  t.is((await s.get(`${url(sid)}?status=resolved`)).code, 40001);
  t.is((await s.get(`${url('sess_nope')}?status=pending`)).code, 40401);
  t.is((await s.post(`${url(sid)}/appr_nope`, { decision: 'approved' })).code, 40404);
  t.is((await s.post(`${url(sid)}/appr_nope`, { decision: 'maybe' })).code, 40001);
});

test('an expired approval answers 41001 and the tool call is denied as timed out', async (t) => {
  const { s, sid } = await setup(t);
  const decided = s.permissions.check(sid, bash('npm publish'), CTX);
  const [item] = await pending(s, sid);
  const later = new Date(Date.parse(item.expires_at) + 1000);
  s.clock.set(later);
  const res = await s.post(`${url(sid)}/${item.approval_id}`, { decision: 'approved' });
  t.is(res.code, 41001);
  const d = (await decided) as Extract<PermissionDecision, { decision: 'deny' }>;
  t.is(d.decision, 'deny');
  t.regex(d.message, /timed out/);
  t.is((await s.post(`${url(sid)}/${item.approval_id}`, { decision: 'approved' })).code, 41001, 'a timed-out approval stays timed out');
  const back = await s.restart();
  t.teardown(() => back.stop());
  t.is((await back.post(`${url(sid)}/${item.approval_id}`, { decision: 'approved' })).code, 41001, 'and across a restart');
});

test('an aborted turn cancels its pending approval', async (t) => {
  const { s, sid } = await setup(t);
  const ac = new AbortController();
  const decided = s.permissions.check(sid, bash('npm test'), CTX, ac.signal);
  const [item] = await pending(s, sid);
  ac.abort();
  t.is((await decided).decision, 'deny');
  t.like((await sessionEvents(s, sid, 'event.approval.resolved'))[0].payload, { approval_id: item.approval_id, decision: 'cancelled', reason: 'turn_aborted' });
  t.is((await s.get(`/api/v1/sessions/${sid}`)).data.pending_interaction, 'none');
});

test('a restart resolves pending approvals as cancelled and keeps session-scoped approvals', async (t) => {
  const s0 = await startTestServer({ keepHome: true });
  const sid = await newSession(s0);
  const perm0 = s0.permissions;
  const first = perm0.check(sid, bash('make'), CTX);
  const [done] = await pending(s0, sid);
  await s0.post(`${url(sid)}/${done.approval_id}`, { decision: 'approved', scope: 'session' });
  await first;
  void perm0.check(sid, bash('npm test', 'call_9'), CTX);
  const [open] = await pending(s0, sid);
  const s = await s0.restart();
  t.teardown(async () => {
    await s.stop();
    await rm(s.home, { recursive: true, force: true });
  });
  t.deepEqual((await s.get(`${url(sid)}?status=pending`)).data.items, []);
  const res = await s.post(`${url(sid)}/${open.approval_id}`, { decision: 'approved' });
  t.is(res.code, 40902);
  t.like((await sessionEvents(s, sid, 'event.approval.resolved')).at(-1)!.payload, { approval_id: open.approval_id, decision: 'cancelled', reason: 'daemon_restarted' });
  t.deepEqual(await s.permissions.check(sid, bash('make', 'call_10'), CTX), { decision: 'allow' });
});

test('config rules and default mode: auto allows edits, rules decide Bash, the guard asks even over an allow rule', async (t) => {
  const home = await tempHome();
  await writeFile(path.join(home, 'config.toml'), `default_permission_mode = "auto"
[[permission.rules]]
pattern = "Bash(curl *)"
decision = "deny"
reason = "no network"
[[permission.rules]]
pattern = "Bash(rm *)"
decision = "allow"
`);
  const s = await startTestServer({ home });
  t.teardown(() => s.stop());
  const sid = await newSession(s);
  const perm = s.permissions;
  t.is(perm.modeOf(sid), 'auto');
  t.deepEqual(await perm.check(sid, { id: 'w', name: 'Write', input: { file_path: 'src/a.ts' } }, CTX), { decision: 'allow' });
  t.deepEqual(await perm.check(sid, bash('rm -rf build'), CTX), { decision: 'allow' });
  const denied = await perm.check(sid, bash('curl https://x'), CTX);
  t.is(denied.decision, 'deny');
  t.regex((denied as { message: string }).message, /no network/);
  const guarded = perm.check(sid, bash('rm -rf /'), CTX);
  const [item] = await pending(s, sid);
  t.regex(item.action, /dangerous/);
  await s.post(`${url(sid)}/${item.approval_id}`, { decision: 'rejected' });
  t.is((await guarded).decision, 'deny');
});
