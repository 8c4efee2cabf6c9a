import test from 'ava';
import { EventCheckError, eventIssues } from '../../protocol/contract-check.ts';
import { EventJournal } from '../../src/events/journal.ts';
import { eventDef, eventDefs, isBroadcast, transcriptRole } from '../../protocol/events/registry.ts';
import type { NewStreamEvent } from '../../protocol/events/registry.ts';
import { buildAsyncApi } from '../../src/ws/asyncapi.ts';
import { tempDir } from '../helpers/fs.ts';
import { openJournal } from '../helpers/journal.ts';
import { startTestServer } from '../helpers/server.ts';

const stepStarted = { agent_id: 'main', turn_id: 'turn_1', step: 1 };

test('the checker accepts an event its entry describes', (t) => {
  t.deepEqual(eventIssues('turn.step.started', 'session_1', 'durable', stepStarted), []);
  t.deepEqual(eventIssues('assistant.delta', 'session_1', 'volatile', { ...stepStarted, text: 'hi', offset: 0 }), []);
  t.deepEqual(eventIssues('gui.cleared', '__gui__', 'durable', {}), []);
});

test('the checker catches an unknown type, an invalid payload and undocumented fields', (t) => {
  t.deepEqual(eventIssues('turn.step.exploded', 'session_1', 'durable', stepStarted), ['no registry entry for this type']);
  t.deepEqual(eventIssues('turn.step.started', 'session_1', 'durable', { agent_id: 'main', turn_id: 'turn_1', step: '1' }), [
    'step: Invalid type: Expected number but received "1"',
  ]);
  t.deepEqual(eventIssues('turn.step.started', 'session_1', 'durable', { agent_id: 'main', step: 1 }), [
    'turn_id: Invalid key: Expected "turn_id" but received undefined',
  ]);
  t.deepEqual(eventIssues('turn.step.started', 'session_1', 'durable', { ...stepStarted, extra: { a: 1 } }), ['extra: not in the schema']);
  t.deepEqual(eventIssues('todo.updated', 'session_1', 'durable', {
    agent_id: 'main', tool_call_id: 'c1', todos: [{ id: 'todo_0', content: 'x', status: 'pending', priority: 'high' }],
  }), ['todos[0].priority: not in the schema']);
});

test('the checker catches an event on the wrong stream or of the wrong durability', (t) => {
  t.deepEqual(eventIssues('gui.cleared', 'session_1', 'durable', {}), ['registered on the gui stream, appended to session_1']);
  t.deepEqual(eventIssues('turn.step.started', '__global__', 'durable', stepStarted), ['registered on the session stream, appended to __global__']);
  t.deepEqual(eventIssues('assistant.delta', 'session_1', 'durable', { ...stepStarted, text: 'hi', offset: 0 }), ['registered as volatile, emitted as durable']);
});

test('a checked server refuses an unknown or invalid event, records both, and its test helper fails at stop', async (t) => {
  const s = await startTestServer();
  const sid = (await s.post('/api/v1/sessions', { metadata: { cwd: await tempDir() } })).data.id as string;
  const journal = s.journal;
  const head = journal.headSeq(sid);
  const unknown = { stream: sid, type: 'turn.step.exploded', payload: stepStarted } as unknown as NewStreamEvent;
  const err = await t.throwsAsync(journal.append([unknown]), { instanceOf: EventCheckError });
  t.regex(err!.message, /turn\.step\.exploded on session_\w+: no registry entry/);
  const invalid = { stream: sid, type: 'turn.step.started', payload: { agent_id: 'main', step: 1 } } as unknown as NewStreamEvent;
  await t.throwsAsync(journal.append([invalid]), { message: /turn_id: Invalid key/ });
  t.is(journal.headSeq(sid), head, 'nothing refused was appended');
  s.bus.publish(sid, 'assistant.delta', { ...stepStarted, text: 'hi' } as never);
  t.deepEqual(s.checker.violations.map((x) => [x.kind, x.subject.replace(sid, '<sid>')]), [
    ['event', 'durable turn.step.exploded on <sid>'], ['event', 'durable turn.step.started on <sid>'], ['event', 'volatile assistant.delta on <sid>'],
  ]);
  t.regex(s.checker.violations[2]!.excerpt, /"text":"hi"/);
  await t.throwsAsync(s.stop(), { message: /does not match the contract[\s\S]*offset: Invalid key/ });
});

test('without a checker (production) the journal appends whatever it is given, unvalidated', async (t) => {
  const journal = await openJournal(t, {}, EventJournal);
  const [e] = await journal.append([{ stream: 'session_1', type: 'turn.step.exploded', payload: {} } as unknown as NewStreamEvent]);
  t.is(e!.seq, 1);
});

test('every entry is coherent and the served AsyncAPI document has a message for each event clients receive', (t) => {
  const doc = buildAsyncApi('test');
  const defs = [...eventDefs()];
  t.true(defs.length > 60);
  for (const d of defs) {
    t.is(eventDef(d.type), d);
    t.is(Boolean(doc.components.messages[d.type]), d.receivers !== 'internal', d.type);
    if (d.durability === 'volatile') t.is(d.stream, 'session', d.type);
  }
  const global = doc.operations.sendGlobalEvents.messages.map((m: { $ref: string }) => m.$ref.split('/').pop());
  t.deepEqual(global, defs.filter((d) => isBroadcast(d.type)).map((d) => d.type));
  t.false(isBroadcast('workspace.trust_changed'));
  t.false(isBroadcast('upload.stored'));
});

test('transcript roles: turn boundaries and interactions at grade turn, deltas, tool progress and task output at delta, shell start/end in no transcript', (t) => {
  for (const type of ['turn.started', 'turn.ended', 'subagent.spawned', 'event.approval.requested', 'event.question.dismissed']) t.is(transcriptRole(type, false), 'turn', type);
  for (const type of ['message.created', 'tool.result', 'session.profile_updated', 'terminal.opened']) t.is(transcriptRole(type, false), 'block', type);
  for (const type of ['assistant.delta', 'thinking.delta', 'tool.call.delta', 'tool.progress']) t.is(transcriptRole(type, true), 'delta', type);
  t.is(transcriptRole('shell.output', true), 'delta', 'a task output append on main\'s channel');
  t.is(transcriptRole('shell.started', true), 'none');
  t.is(transcriptRole('some.old_type', false), 'block', 'a type without an entry counts as a block event');
});
