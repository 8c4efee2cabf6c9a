import test from 'ava';
import { scripts } from '../../fixtures/llm/index.ts';
import { prompt, YOLO } from '../helpers/engine.ts';
import { opsOf, restTranscript, sameAsRest, transcriptIdle, watchedEngine } from './transcript-client.ts';

// spec/clients.md B3 tool frame `view` (a string): the call in one line, derived from its name and input.

const tc = (id: string, name: string, args: unknown) => ({ tool_call: { id, name, args } });
const frames = (d: any) => d.items.flatMap((i: any) => i.steps ?? []).flatMap((st: any) => st.frames).filter((f: any) => f.kind === 'tool');

test('tool frames carry a one-line view: description or command, path, pattern, count; none for a tool without one', async (t) => {
  const env = await watchedEngine(t, { extraToml: YOLO });
  const { s, sid, c } = env;
  const long = `echo ${'x'.repeat(300)}`;
  env.llm.setScript({
    events: [
      tc('v1', 'Bash', { command: 'ls -la', description: 'List files' }),
      tc('v2', 'Bash', { command: '\n  echo first\necho second' }),
      tc('v3', 'Bash', { command: long }),
      tc('v4', 'Read', { file_path: 'README.md' }),
      tc('v5', 'Glob', { pattern: '**/*.ts', path: 'src' }),
      tc('v6', 'TodoWrite', { todos: [{ id: 'a', content: 'One', status: 'pending', activeForm: 'Doing one' }, { id: 'b', content: 'Two', status: 'pending', activeForm: 'Doing two' }] }),
      tc('v7', 'EnterPlanMode', {}),
    ],
  }, scripts.helloText);
  await prompt(env, 'tools');
  await transcriptIdle(s, sid);
  const d = await sameAsRest(t, c, s, sid, 'after the calls');
  const view = Object.fromEntries(frames(d).map((f: any) => [f.toolCallId, f.view]));
  t.is(view.v1, 'List files');
  t.is(view.v2, 'echo first');
  t.is(view.v3.length, 160);
  t.true(view.v3.endsWith('…') && view.v3.startsWith('echo xxx'));
  t.is(view.v4, 'README.md');
  t.is(view.v5, '**/*.ts in src');
  t.is(view.v6, '2 items');
  t.false('view' in frames(d).find((f: any) => f.toolCallId === 'v7'), 'no view for a call without a subject');
  t.true(opsOf(c).some((o) => o.op === 'frame.upsert' && o.frame.toolCallId === 'v1' && o.frame.view === 'List files'));
  await c.ws.close();
  const s2 = await s.restart();
  t.teardown(() => s2.stop());
  t.deepEqual(frames(await restTranscript(s2, sid)).map((f: any) => f.view), frames(d).map((f: any) => f.view), 'a fold of the journal has the same views');
});
