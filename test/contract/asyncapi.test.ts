import test from 'ava';
import { serverFor } from '../helpers/server.ts';

// The served specs document the client superset (spec/clients.md E3-E17): what the contract tests send is in
// /asyncapi.json and /openapi.json, with the types and required keys clients rely on.

const WORKSPACE = ['id', 'root', 'name', 'created_at', 'last_opened_at', 'session_count'];
const SESSION = ['id', 'title', 'created_at', 'updated_at', 'busy', 'main_turn_active', 'pending_interaction', 'archived', 'metadata', 'agent_config', 'usage'];
const STATUSES = ['idle', 'running', 'awaiting_approval', 'awaiting_question', 'aborted'];

test('/asyncapi.json documents the wire payloads clients read and the connection frames they use', async (t) => {
  const s = await serverFor(t);
  const doc = (await s.req('GET', '/asyncapi.json')).body as any;
  const msgs = doc.components.messages;
  const payload = (type: string) => msgs[type].payload.properties.payload;
  const has = (list: string[], keys: string[], what: string) => t.deepEqual(keys.filter((k) => !list.includes(k)), [], what);

  // E3 / E4: the spec's fields at top level and the nested copy, both required.
  for (const type of ['event.workspace.created', 'event.workspace.updated']) {
    has(payload(type).required, [...WORKSPACE, 'workspace'], `E3 ${type}`);
    has(payload(type).properties.workspace.required, WORKSPACE, `E3 ${type}.workspace`);
  }
  has(payload('event.session.created').required, [...SESSION, 'session'], 'E4');
  has(payload('event.session.created').properties.session.required, SESSION, 'E4 session');
  // E6.
  const status = payload('event.session.status_changed');
  has(status.required, ['status', 'session_id', 'busy', 'pending_interaction'], 'E6 status_changed');
  t.deepEqual(status.properties.status.enum, STATUSES);
  t.deepEqual(status.properties.previous_status.enum, STATUSES);
  const work = payload('event.session.work_changed');
  has(work.required, ['session_id', 'sessionId', 'busy', 'main_turn_active', 'pending_interaction'], 'E6 work_changed');
  t.deepEqual(work.properties.pending_interaction.enum, ['none', 'approval', 'question']);
  t.deepEqual(work.properties.last_turn_reason.enum, ['completed', 'cancelled', 'failed']);
  // E8.
  const patch = payload('session.meta.updated').properties.patch;
  t.deepEqual(patch.required, ['title', 'isCustomTitle']);
  t.deepEqual([patch.properties.title.type, patch.properties.isCustomTitle.type, patch.properties.lastPrompt.type], ['string', 'boolean', 'string']);
  // E7.
  const catalog = payload('event.model_catalog.changed');
  has(catalog.required, ['changed', 'unchanged', 'failed', 'reason', 'added', 'removed'], 'E7');
  t.deepEqual(catalog.properties.changed.items.required, ['provider_id', 'provider_name', 'added', 'removed']);
  // E10: snapshot is the goal's schema; camelCase keys on durable frames, agentId only on deltas.
  t.deepEqual(payload('goal.updated').properties.snapshot, payload('goal.updated').properties.goal);
  has(payload('turn.started').required, ['agentId', 'turnId', 'sessionId', 'agent_id', 'turn_id'], 'E10 turn.started');
  t.is(payload('turn.started').properties.turnId.type, 'integer', 'F: the turn ordinal');
  t.is(payload('turn.started').properties.sessionId.type, 'string');
  // F: the v1 payloads as the reference server sends them, required with its types, on every session event.
  const F: Record<string, Record<string, string>> = {
    'turn.started': { turnId: 'integer', promptId: 'string', origin: 'object', prompt: 'string' },
    'turn.step.started': { turnId: 'integer', step: 'integer', stepId: 'string' },
    'assistant.delta': { turnId: 'integer', delta: 'string' },
    'thinking.delta': { turnId: 'integer', delta: 'string' },
    'tool.call.delta': { turnId: 'integer', toolCallId: 'string', name: 'string', argumentsPart: 'string' },
    'tool.call.started': { toolCallId: 'string', name: 'string', args: 'object', description: 'string', display: 'object' },
    'tool.progress': { toolCallId: 'string', update: 'object' },
    'tool.result': { toolCallId: 'string', output: 'string' },
    'turn.step.completed': { turnId: 'integer', step: 'integer', stepId: 'string', usage: 'object', finishReason: 'string' },
    'turn.step.interrupted': { turnId: 'integer', step: 'integer', stepId: 'string', reason: 'string' },
    'turn.ended': { turnId: 'integer', reason: 'string' },
    'permission.approval.requested': { id: 'string', toolCallId: 'string', toolName: 'string', action: 'string', display: 'object' },
    'permission.approval.resolved': { id: 'string', toolCallId: 'string', decision: 'string' },
    'prompt.submitted': { promptId: 'string', userMessageId: 'string', status: 'string', content: 'array', createdAt: 'string' },
    'prompt.started': { promptId: 'string' },
    'prompt.completed': { promptId: 'string', finishedAt: 'string', reason: 'string' },
    'prompt.aborted': { promptId: 'string', abortedAt: 'string' },
  };
  for (const [type, keys] of Object.entries(F)) {
    const p = payload(type);
    has(p.required, ['type', 'time', 'agentId', 'sessionId', ...Object.keys(keys)], `F ${type}`);
    for (const [k, ty] of Object.entries(keys)) t.is(p.properties[k].type ?? typeof p.properties[k].const, ty, `F ${type}.${k}`);
  }
  // Optional where a step applies; the ordinal and durations.
  for (const type of ['tool.call.started', 'tool.result', 'permission.approval.requested']) {
    t.is(payload(type).properties.turnId.type, 'integer', `${type}.turnId`);
    t.is(payload(type).properties.stepId.type, 'string', `${type}.stepId`);
  }
  t.is(payload('turn.ended').properties.durationMs.type, 'number');
  t.deepEqual(payload('turn.step.completed').properties.usage.required, [
    'input_tokens', 'output_tokens', 'cache_read_tokens', 'cache_creation_tokens', 'inputOther', 'output', 'inputCacheRead', 'inputCacheCreation',
  ]);
  // A6 and E14.
  has(payload('task.started').properties.info.required, ['taskId', 'kind', 'startedAt', 'status'], 'A6 task info');
  t.is(payload('task.started').properties.info.properties.startedAt.type, 'number');
  t.is(payload('task.started').properties.task.properties.run_in_background.type, 'boolean');
  has(payload('task.started').properties.task.required, ['run_in_background'], 'E14');
  t.deepEqual(payload('compaction.completed').properties.result.required, ['tokensBefore', 'tokensAfter', 'summaryMessageId']);
  t.is(payload('subagent.spawned').properties.subagentId.type, 'string');
  has(payload('subagent.spawned').required, ['subagentId'], 'A6 subagentId');
  // A5 and internal events.
  t.deepEqual(payload('event.session.deleted').required, ['session_id', 'sessionId', 'workspace_id']);
  t.is(msgs['file.changed'], undefined, 'internal: not on the wire');
  // Connection frames: E9, E17.
  const resync = msgs.resync_required.payload.properties.payload;
  has(resync.required, ['current_seq', 'head_seq', 'session_id', 'epoch'], 'E9');
  t.is(resync.properties.current_seq.type, 'number');
  has(msgs.terminal_output.payload.required, ['terminal_id', 'seq'], 'E17 envelope');
  t.deepEqual([msgs.terminal_output.payload.properties.terminal_id.type, msgs.terminal_output.payload.properties.seq.type], ['string', 'number']);
  has(msgs.terminal_exit.payload.required, ['terminal_id'], 'E17 terminal_exit');
  t.deepEqual(msgs.terminal_close.payload.properties.payload.required, ['terminal_id']);
  t.is(msgs.terminal_close.payload.properties.payload.properties.session_id.type, 'string');
  t.is(msgs.terminal_attach.payload.properties.payload.properties.since_seq.type, 'integer');
  const ack = msgs.ack.description as string;
  for (const key of ['accepted_subscriptions', 'resync_required', 'not_found', 'accepted']) t.true(ack.includes(key), key);
});

test('/openapi.json documents the client routes; each alias with its canonical route\'s methods, response and codes', async (t) => {
  const s = await serverFor(t);
  const api = (await s.req('GET', '/openapi.json')).body as any;
  const methods = (p: string) => Object.keys(api.paths[p] ?? {}).filter((k) => ['get', 'post', 'put', 'patch', 'delete'].includes(k)).sort();
  t.deepEqual(methods('/api/v1/sessions/{session_id}:delete'), ['post']);
  t.deepEqual(methods('/api/v1/sessions/{session_id}/file-history/changes'), ['get']);
  t.deepEqual(methods('/api/v1/sessions/{session_id}/file-history/content'), ['get']);
  const aliases: Array<[string, string, string, string]> = [
    ['/api/v1/oauth/login', 'post', '/api/v1/auth/login', 'post'],
    ['/api/v1/oauth/login', 'get', '/api/v1/auth/login', 'get'],
    ['/api/v1/oauth/login', 'delete', '/api/v1/auth/login', 'delete'],
    ['/api/v1/oauth/logout', 'post', '/api/v1/auth/logout', 'post'],
    ['/api/v1/oauth/usage', 'get', '/api/v1/auth/status', 'get'],
    ['/api/v1/oauth/userinfo', 'get', '/api/v1/auth/status', 'get'],
    ['/api/v1/providers:refresh_oauth', 'post', '/api/v1/providers:refresh_providers', 'post'],
  ];
  for (const [alias, m, canonical, cm] of aliases) {
    const a = api.paths[alias]?.[m];
    const c = api.paths[canonical][cm];
    t.truthy(a, `${m} ${alias}`);
    t.deepEqual(a['x-business-codes'], c['x-business-codes'], `${m} ${alias}: codes`);
    t.deepEqual(a.responses['200'], c.responses['200'], `${m} ${alias}: response`);
  }
});
