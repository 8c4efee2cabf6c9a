import test from 'ava';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { prompt } from '../helpers/engine.ts';
import { until } from '../helpers/wait.ts';
import { restTranscript, sameAsRest, toolFrameOf, watchedEngine } from './transcript-client.ts';
import { v1Issues } from './v1-frames.ts';

// spec/clients.md B3, B4, F: a call's `display` is a block object, the same wherever a client reads it: the
// transcript's tool frame, an approval interaction's `request.display`, `tool.call.started` and
// `permission.approval.requested` on the v1 stream. One builder per tool (protocol/display.ts): Read / Write
// `file_io`, Edit `diff`, TodoWrite `todo_list` (Bash `command` is in v1-stream.test.ts and the published UI's journey).

const calls = (...list: Array<[string, string, unknown]>) => ({ events: list.map(([id, name, args]) => ({ tool_call: { id, name, args } })) });

test('display blocks: Read file_io, TodoWrite todo_list, Edit diff (and its approval) in tool frames, the interaction and the v1 frames', async (t) => {
  const env = await watchedEngine(t, { extraToml: 'default_permission_mode = "manual"' });
  const { s, sid, ws, c } = env;
  const cwd = (await s.get(`/api/v1/sessions/${sid}`)).data.metadata.cwd as string;
  await writeFile(path.join(cwd, 'notes.txt'), 'old line\n');
  const todos = [{ content: 'check it', status: 'completed', activeForm: 'checking it' }, { content: 'ship it', status: 'in_progress', activeForm: 'shipping it' }];
  env.llm.setScript(
    calls(['r1', 'Read', { file_path: 'notes.txt' }], ['td1', 'TodoWrite', { todos }]),
    calls(['e1', 'Edit', { file_path: 'notes.txt', old_string: 'old line', new_string: 'new line' }]),
    { events: [{ text: 'edited' }] },
  );
  t.is((await prompt(env, 'edit the notes')).code, 0);

  const diff = { kind: 'diff', path: 'notes.txt', old_text: 'old line', new_text: 'new line' };
  // The Edit waits for its approval: the interaction's request carries the block, not a string.
  const asked = await ws.waitFor((f) => f.type === 'permission.approval.requested');
  t.like(asked.payload, { toolCallId: 'e1', toolName: 'Edit', display: diff });
  const pending = await until(async () => (await restTranscript(s, sid)).interactions?.find((i: any) => i.state === 'pending'), 30_000);
  t.like(pending, { interactionKind: 'approval', toolCallId: 'e1', request: { toolName: 'Edit', display: diff } });
  await sameAsRest(t, c, s, sid, 'waiting for the approval');
  t.is((await s.post(`/api/v1/sessions/${sid}/approvals/${asked.payload.id}`, { decision: 'approved' })).code, 0);
  await ws.waitFor((f) => f.type === 'turn.ended');
  const d = await sameAsRest(t, c, s, sid, 'the turn ended');

  const blocks: Record<string, unknown> = {
    r1: { kind: 'file_io', operation: 'read', path: 'notes.txt' },
    td1: { kind: 'todo_list', items: [{ title: 'check it', status: 'done' }, { title: 'ship it', status: 'in_progress' }] },
    e1: diff,
  };
  for (const [id, block] of Object.entries(blocks)) {
    t.deepEqual(toolFrameOf(d, id).display, block, `tool frame ${id}`);
    t.deepEqual(ws.frames.find((f) => f.type === 'tool.call.started' && f.payload.toolCallId === id).payload.display, block, `tool.call.started ${id}`);
  }
  t.like(d.interactions.find((i: any) => i.toolCallId === 'e1'), { state: 'approved', request: { display: diff } });
  t.deepEqual(ws.frames.flatMap(v1Issues), []);
});
