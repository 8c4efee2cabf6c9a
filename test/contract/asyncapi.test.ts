import test from 'ava';
import { serverFor } from '../helpers/server.ts';

// The served specs document the client superset (spec/clients.md E3-E17): what the contract tests send is in /asyncapi.json and /openapi.json.

test('/asyncapi.json documents the wire payloads clients read and the connection frames they use', async (t) => {
  const s = await serverFor(t);
  const doc = (await s.req('GET', '/asyncapi.json')).body as any;
  const msgs = doc.components.messages;
  const payload = (type: string) => msgs[type].payload.properties.payload;
  t.truthy(payload('event.workspace.created').properties.workspace, 'E3');
  t.truthy(payload('event.session.created').properties.session, 'E4');
  t.true(payload('event.session.status_changed').required.includes('status'), 'E6');
  t.truthy(payload('event.session.work_changed').properties.last_turn_reason, 'E6');
  t.truthy(payload('session.meta.updated').properties.patch, 'E8');
  t.true(payload('event.model_catalog.changed').required.includes('changed'), 'E7');
  t.truthy(payload('goal.updated').properties.snapshot, 'E10');
  t.truthy(payload('turn.started').properties.agentId, 'E10');
  t.truthy(payload('turn.started').properties.sessionId, 'E10');
  t.truthy(payload('assistant.delta').properties.agentId, 'E10 (volatile: agentId only)');
  t.truthy(payload('task.started').properties.info, 'A6');
  t.true(payload('task.started').properties.task.required.includes('run_in_background'), 'E14');
  t.truthy(payload('compaction.completed').properties.result, 'A6');
  t.truthy(payload('subagent.spawned').properties.subagentId, 'A6');
  t.truthy(msgs['event.session.deleted'], 'A5');
  t.falsy(msgs['file.changed'], 'internal');
  t.true(msgs.resync_required.payload.properties.payload.required.includes('current_seq'), 'E9');
  t.truthy(msgs.terminal_output.payload.properties.terminal_id, 'E17');
  t.truthy(msgs.terminal_output.payload.properties.seq, 'E17');
  t.truthy(msgs.terminal_close, 'E17');
  t.truthy(msgs.terminal_attach.payload.properties.payload.properties.since_seq, 'E17');
  const ack = msgs.ack.description as string;
  for (const key of ['accepted_subscriptions', 'resync_required', 'not_found', 'accepted']) t.true(ack.includes(key), key);
  const api = (await s.req('GET', '/openapi.json')).body as any;
  for (const p of [
    '/api/v1/sessions/{session_id}:delete', '/api/v1/sessions/{session_id}/file-history/changes', '/api/v1/sessions/{session_id}/file-history/content',
    '/api/v1/oauth/login', '/api/v1/oauth/logout', '/api/v1/oauth/usage', '/api/v1/oauth/userinfo', '/api/v1/providers:refresh_oauth',
  ]) t.truthy(api.paths[p], p);
});
