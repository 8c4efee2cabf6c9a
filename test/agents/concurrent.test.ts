import test from 'ava';
import { scripts } from '../../fixtures/llm/index.ts';
import { journal, prompt, startEngine } from '../helpers/engine.ts';
import { resultOf, toolResults, turnEnded, userTexts, YOLO } from '../helpers/subagents.ts';
import { until } from '../helpers/wait.ts';

// Several Agent calls of one step run concurrently (bounded), each with its own events; results keep the calls' order.

const agentCalls = (...ids: string[]) => ({ events: ids.map((id) => ({ tool_call: { id, name: 'Agent', args: { description: `job ${id}`, prompt: `task of ${id}` } } })) });

function gate() {
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  return { held, release };
}

test('three Agent calls of one step start their subagents together; results come back in the calls\' order', async (t) => {
  const env = await startEngine(t, { extraToml: YOLO });
  const gates = [gate(), gate(), gate()];
  env.llm.setScript(
    agentCalls('c1', 'c2', 'c3'),
    ...gates.map((g, i) => ({ events: [{ text: `answer ${i}` }], hold: [{ after: 0, until: g.held }] })),
    { events: [{ text: 'all done' }] },
  );
  await prompt(env, 'delegate three jobs');
  // Every subagent's model request is out while none has been answered: they run at once.
  await until(() => env.llm.requests.length === 4, 30_000);
  const started = (await journal(env)).filter((e) => e.type === 'subagent.started');
  t.is(started.length, 3);
  // Released last-first: completion order differs from the calls' order.
  const completed = async (n: number) => until(async () => (await journal(env)).filter((e) => e.type === 'subagent.completed').length === n, 30_000);
  for (const [n, g] of [gates[2]!, gates[1]!, gates[0]!].entries()) {
    g.release();
    await completed(n + 1);
  }
  t.is((await turnEnded(env)).payload.reason, 'completed');
  // Reply i went to the subagent whose request came i-th; map each call to the answer its subagent got.
  const answerOf = (id: string) => `answer ${env.llm.requests.slice(1, 4).findIndex((r) => userTexts(r.body).includes(`task of ${id}`))}`;
  const expected = ['c1', 'c2', 'c3'].map(answerOf);
  t.deepEqual(new Set(expected).size, 3);
  t.deepEqual(toolResults(env.llm.requests[4]!.body), expected);
  for (const id of ['c1', 'c2', 'c3']) t.is((await resultOf(env, id)).content, answerOf(id));
  // Each subagent has its own agent, task and turn.
  const events = await journal(env);
  const spawned = events.filter((e) => e.type === 'subagent.spawned').map((e) => e.payload);
  t.deepEqual(spawned.map((p) => p.parent_tool_call_id).sort(), ['c1', 'c2', 'c3']);
  t.is(new Set(spawned.map((p) => p.agent_id)).size, 3);
  t.is(new Set(spawned.map((p) => p.task_id)).size, 3);
  for (const p of spawned) t.true(events.some((e) => e.type === 'turn.ended' && e.payload.agent_id === p.agent_id && e.payload.reason === 'completed'));
});

test('at most four Agent calls of one step run at once; the fifth starts when one ends', async (t) => {
  const env = await startEngine(t, { extraToml: YOLO });
  const gates = [gate(), gate(), gate(), gate(), gate()];
  const ids = ['c1', 'c2', 'c3', 'c4', 'c5'];
  env.llm.setScript(agentCalls(...ids), ...gates.map((g, i) => ({ events: [{ text: `answer ${i}` }], hold: [{ after: 0, until: g.held }] })), { events: [{ text: 'ok' }] });
  await prompt(env, 'go');
  await until(() => env.llm.requests.length === 5, 30_000);
  t.is((await journal(env)).filter((e) => e.type === 'subagent.spawned').length, 4);
  gates[0]!.release();
  await until(() => env.llm.requests.length === 6, 30_000);
  for (const g of gates) g.release();
  t.is((await turnEnded(env)).payload.reason, 'completed');
  t.is(toolResults(env.llm.requests[6]!.body).length, 5);
});

test('aborting the turn cancels every running subagent of the step', async (t) => {
  const env = await startEngine(t, { extraToml: YOLO });
  env.llm.setScript(agentCalls('c1', 'c2', 'c3'), scripts.hang, scripts.hang, scripts.hang);
  await prompt(env, 'go');
  await until(() => env.llm.requests.length === 4, 30_000);
  t.is((await env.s.post(`/api/v1/sessions/${env.sid}:abort`, {})).code, 0);
  t.is((await turnEnded(env)).payload.reason, 'cancelled');
  const failed = (await until(async () => {
    const f = (await journal(env)).filter((e) => e.type === 'subagent.failed');
    return f.length === 3 ? f : undefined;
  }, 30_000))!;
  t.deepEqual(failed.map((e) => e.payload.reason), ['cancelled', 'cancelled', 'cancelled']);
  for (const r of env.llm.requests.slice(1)) t.is(await r.outcome, 'aborted');
  t.deepEqual((await env.s.get(`/api/v1/sessions/${env.sid}/tasks?status=running`)).data.items, []);
});

test('a Write between Agent calls splits them: the Write runs after the first subagent and before the second', async (t) => {
  const env = await startEngine(t, { extraToml: YOLO });
  env.llm.setScript(
    { events: [
      { tool_call: { id: 'a1', name: 'Agent', args: { description: 'd', prompt: 'first' } } },
      { tool_call: { id: 'w1', name: 'Write', args: { file_path: 'out.txt', content: 'x' } } },
      { tool_call: { id: 'a2', name: 'Agent', args: { description: 'd', prompt: 'second' } } },
    ] },
    { events: [{ text: 'one' }] }, { events: [{ text: 'two' }] }, { events: [{ text: 'done' }] },
  );
  await prompt(env, 'go');
  t.is((await turnEnded(env)).payload.reason, 'completed');
  const events = await journal(env);
  const seq = (type: string, id: string) => events.find((e) => e.type === type && e.payload.tool_call_id === id)!.seq;
  t.true(seq('tool.result', 'a1') < seq('tool.call.started', 'w1'));
  t.true(seq('tool.result', 'w1') < seq('tool.call.started', 'a2'));
  t.deepEqual(toolResults(env.llm.requests[3]!.body).map((x) => x.split('\n')[0]), ['one', (await resultOf(env, 'w1')).content.split('\n')[0], 'two']);
});
