import test from 'ava';
import { scripts } from '../../fixtures/llm/index.ts';
import { journal, prompt, startEngine, turnEnded, type EngineEnv } from '../helpers/engine.ts';

const MANUAL = 'default_permission_mode = "manual"';

async function todoCall(env: EngineEnv, id: string, args: unknown) {
  env.llm.setScript({ events: [{ tool_call: { id, name: 'TodoWrite', args } }] }, scripts.helloText);
  const r = await prompt(env, 'plan the work');
  if (r.code !== 0) throw new Error(JSON.stringify(r));
  return turnEnded(env, 1, 30_000);
}

test('TodoWrite journals todo.updated with ids, never asks approval, and the model reads the summary', async (t) => {
  const env = await startEngine(t, { extraToml: MANUAL });
  const todos = [
    { content: 'Read the code', status: 'completed' },
    { content: 'Fix the bug', status: 'in_progress', activeForm: 'Fixing the bug' },
    { content: 'Add tests', status: 'pending', id: 'mine' },
  ];
  t.is((await todoCall(env, 'td1', { todos })).payload.reason, 'completed');
  const events = await journal(env);
  t.false(events.some((e) => e.type === 'event.approval.requested'));
  const updated = events.find((e) => e.type === 'todo.updated')!;
  t.like(updated.payload, { agent_id: 'main', tool_call_id: 'td1' });
  t.is(typeof updated.payload.turn_id, 'string');
  t.deepEqual(updated.payload.todos, [
    { id: 'todo_0', content: 'Read the code', status: 'completed' },
    { id: 'todo_1', content: 'Fix the bug', status: 'in_progress', activeForm: 'Fixing the bug' },
    { id: 'mine', content: 'Add tests', status: 'pending' },
  ]);
  const result = events.find((e) => e.type === 'tool.result' && e.payload.tool_call_id === 'td1')!.payload;
  t.false(result.is_error);
  t.regex(result.content, /3 item\(s\), 1 completed, 1 in progress, 1 pending/);
  t.regex(result.content, /In progress: Fix the bug/);
  // The model's next request carries the summary as the tool result.
  t.regex(JSON.stringify(env.llm.requests[1]!.body.messages), /1 completed, 1 in progress, 1 pending/);
});

test('TodoWrite with an invalid status or empty content is a tool error and journals nothing', async (t) => {
  const env = await startEngine(t);
  await todoCall(env, 'td2', { todos: [{ content: 'x', status: 'done' }, { content: '  ', status: 'pending' }] });
  const events = await journal(env);
  t.false(events.some((e) => e.type === 'todo.updated'));
  const result = events.find((e) => e.type === 'tool.result' && e.payload.tool_call_id === 'td2')!.payload;
  t.true(result.is_error);
  t.regex(result.content, /todos\.0\.status: must be one of pending, in_progress, completed/);
  t.regex(result.content, /todos\.1\.content: must not be empty/);
});

test('/asyncapi.json documents todo.updated and the plan review fields of approvals', async (t) => {
  const env = await startEngine(t);
  const msgs = ((await env.s.req('GET', '/asyncapi.json')).body as any).components.messages;
  const todo = msgs['todo.updated'].payload.properties.payload.properties;
  t.deepEqual(todo.todos.items.properties.status.enum, ['pending', 'in_progress', 'completed']);
  const approval = msgs['event.approval.requested'].payload.properties.payload.properties;
  t.truthy(approval.options);
  t.truthy(approval.plan);
});
