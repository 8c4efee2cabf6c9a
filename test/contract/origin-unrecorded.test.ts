import test from 'ava';

import { opsOf, restTranscript, sameAsRest, watchedEngine } from './transcript-client.ts';

// spec/clients.md B2: a main-agent turn whose prompt the journal does not record (no prompt.accepted, as in a journal
// that predates it) is a `user` turn, not a subagent's task prompt; subagent turns keep `other`/subagent_prompt
// (test/contract/origins.test.ts).

const usage = { input_tokens: 1, output_tokens: 1, cache_read_tokens: 0, cache_creation_tokens: 0 };

test('a main turn without a prompt record has origin user (GET /transcript and the turn.upsert ops agree)', async (t) => {
  const env = await watchedEngine(t);
  const { s, sid, c } = env;
  const now = new Date().toISOString();
  await s.journal.append([
    { stream: sid, type: 'turn.started', payload: { agent_id: 'main', turn_id: 'turn_x', prompt_id: 'msg_unrecorded', prompt_ids: [], model: 'fx', started_at: now } },
    { stream: sid, type: 'turn.ended', payload: { agent_id: 'main', turn_id: 'turn_x', prompt_id: 'msg_unrecorded', reason: 'completed', usage, steps: 0, ended_at: now } },
  ] as never);
  const d = await sameAsRest(t, c, s, sid, 'a record-less turn');
  const turn = d.items.find((i: any) => i.kind === 'turn');
  t.deepEqual(turn.origin, { kind: 'user' });
  t.is(turn.triggerPromptId, undefined, 'no prompt entity to point at');
  t.true(opsOf(c).some((o) => o.op === 'turn.upsert' && o.turn.origin.kind === 'user'));
  // A fold of the journal after a restart says the same.
  await c.ws.close();
  const s2 = await s.restart();
  t.teardown(() => s2.stop());
  t.deepEqual((await restTranscript(s2, sid)).items.find((i: any) => i.kind === 'turn').origin, { kind: 'user' });
});
