import test from 'ava';
import { tempDir } from '../helpers/fs.ts';
import { serverFor } from '../helpers/server.ts';

test('client frames are bounded like REST: agent_filter is agent ids, since a safe integer, client_id an id; each gets 40001 with details', async (t) => {
  const s = await serverFor(t);
  const sid = (await s.post('/api/v1/sessions', { metadata: { cwd: await tempDir() } })).data.id;
  const ws = await s.ws();
  t.teardown(() => ws.close());
  const cases: Array<[string, unknown, string, number?]> = [
    ['subscribe', { session_ids: [sid], agent_filter: 'x' }, 'payload.agent_filter'],
    ['subscribe', { session_ids: [sid], agent_filter: ['$$$'] }, 'payload.agent_filter.0'],
    ['subscribe', { session_ids: [sid], agent_filter: ['a'.repeat(257)] }, 'payload.agent_filter.0', 256],
    ['subscribe', { session_ids: [sid], cursors: { [sid]: { seq: 1e308, epoch: 'e' } } }, `payload.cursors.${sid}.seq`, Number.MAX_SAFE_INTEGER],
    ['client_hello', { client_id: 'web', agent_filter: 'x' }, 'payload.agent_filter'],
    ['client_hello', { client_id: 'c'.repeat(1_000_000) }, 'payload.client_id', 256],
    ['terminal_attach', { terminal_id: 't', since: 1e308 }, 'payload.since', Number.MAX_SAFE_INTEGER],
    ['terminal_attach', { terminal_id: 't', since: 1.5 }, 'payload.since'],
    ['subscribe_v2', { session_id: sid, transcript: { main: 'delta' }, transcript_since: { main: 1e308 } }, 'payload.transcript_since.main', Number.MAX_SAFE_INTEGER],
    ['unsubscribe', { session_ids: Array.from({ length: 1001 }, (_, i) => `s${i}`) }, 'payload.session_ids', 1000],
  ];
  for (const [type, payload, field, limit] of cases) {
    const ack = await ws.request(type, payload);
    t.is(ack.code, 40001, `${type} ${field}`);
    const issue = ack.details.find((d: { field: string }) => d.field === field);
    t.truthy(issue, `${type}: ${JSON.stringify(ack.details)}`);
    if (limit !== undefined) t.is(issue.limit, limit, field);
  }
  // The socket survives and valid frames still work; an oversize id is not echoed back.
  const ok = await ws.request('subscribe', { session_ids: [sid], agent_filter: ['main', 'agent_1.x-y'] });
  t.is(ok.code, 0);
  t.is((await ws.request('client_hello', { client_id: 'web_1', subscriptions: [sid], cursors: { [sid]: { seq: 0 } } })).code, 0);
  const long = 'i'.repeat(300);
  ws.socket.send(JSON.stringify({ type: 'client_hello', id: long, payload: { client_id: 'x' } }));
  const echoed = await ws.waitFor((f) => f.type === 'ack' && f.id === null);
  t.is(echoed.code, 40001);
});
