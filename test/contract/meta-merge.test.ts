import test from 'ava';
import { scripts } from '../../fixtures/llm/index.ts';
import { prompt } from '../helpers/engine.ts';
import { sameAsRest, transcriptIdle, watchedEngine } from './transcript-client.ts';

// spec/clients.md C `meta.merge`: the record families each patch `meta` for turn.started, turn.step.completed and
// turn.ended; the client gets one composed `meta.merge` per event (per batch), and the fold stays equal to GET.

const ops = (f: any) => f.payload.ops as any[];

test('each event makes at most one meta.merge: turn start, step completion and turn end each carry one composed patch', async (t) => {
  const env = await watchedEngine(t);
  const { s, sid, c } = env;

  env.llm.setScript(scripts.thinkingThenText, scripts.helloText);
  await prompt(env, 'one');
  await transcriptIdle(s, sid);
  await prompt(env, 'two');
  await transcriptIdle(s, sid);
  const d = await sameAsRest(t, c, s, sid, 'two turns');

  const batches = c.ws.frames.filter((f) => f.type === 'transcript.ops' && f.payload.agent_id === 'main');
  t.true(batches.length > 5);
  for (const b of batches) t.true(ops(b).filter((o) => o.op === 'meta.merge').length <= 1, JSON.stringify(ops(b).map((o) => o.op)));

  // turn.started: activity, model, permission and the fresh currentTurn in one patch.
  const started = batches.filter((b) => ops(b).some((o) => o.op === 'turn.upsert' && o.turn.state === 'running' && !o.turn.endedAt));
  t.is(started.length, 2);
  const startMeta = ops(started[1]).find((o) => o.op === 'meta.merge').meta;
  t.is(startMeta.activity, 'turn');
  t.like(startMeta.agent, { model: d.meta.agent.model, usage: { currentTurn: { inputOther: 0, output: 0, inputCacheRead: 0, inputCacheCreation: 0 } } });
  t.truthy(startMeta.agent.usage.total, 'the running totals are kept');

  // turn.step.completed: contextTokens and the usage sums in one patch; currentTurn = the step's usage.
  const completed = batches.filter((b) => ops(b).some((o) => o.op === 'step.upsert' && o.step.state === 'completed'));
  const stepMeta = ops(completed.at(-1)).find((o) => o.op === 'meta.merge').meta;
  t.is(typeof stepMeta.agent.contextTokens, 'number');
  t.deepEqual(stepMeta.agent.usage.currentTurn, { inputOther: 12, output: 3, inputCacheRead: 4, inputCacheCreation: 0 });
  t.deepEqual(stepMeta.agent.usage.total, { inputOther: 32, output: 9, inputCacheRead: 4, inputCacheCreation: 0 });

  // turn.ended: activity idle, our summary keys and the ended phase in one patch.
  const ended = batches.filter((b) => ops(b).some((o) => o.op === 'turn.upsert' && o.turn.state === 'completed'));
  const endMeta = ops(ended.at(-1)).find((o) => o.op === 'meta.merge').meta;
  t.like(endMeta, { activity: 'idle', turns: 2, last_turn_reason: 'completed', agent: { phase: { kind: 'ended', turnId: 1, reason: 'completed' } } });
  t.like(d.meta, { activity: 'idle', agent: { usage: { total: { inputOther: 32, output: 9 } }, phase: { kind: 'ended' } } });
});
