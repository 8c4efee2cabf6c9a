import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import test from 'ava';
import { scripts } from '../../fixtures/llm/index.ts';
import { prompt, YOLO } from '../helpers/engine.ts';
import { until } from '../helpers/wait.ts';
import { opsOf, restTranscript, sameAsRest, toolCall, toolFrameOf, transcriptIdle, watchedEngine } from './transcript-client.ts';

// spec/clients.md B3 tool frame `taskId`: the Bash call that started a background task names it, whether started with
// run_in_background or moved to the background when its timeout passed; the task object says which call started it.

const call = (id: string, args: unknown) => toolCall(id, 'Bash', args);
const say = (text: string) => ({ events: [{ text }] });

test('a background Bash call\'s tool frame carries the taskId of its task (started so, or moved there on timeout)', async (t) => {
  const env = await watchedEngine(t, { extraToml: YOLO });
  const { s, sid, c } = env;
  const cwd = s.sessions.get(sid)!.cwd;

  // The nth turn of the transcript completed (a running background task keeps the session busy, so no idle wait).
  const turnsDone = (n: number) => until(async () => {
    const turns = (await restTranscript(s, sid)).items.filter((i: any) => i.kind === 'turn');
    return (turns.length === n && turns[n - 1].state === 'completed') || undefined;
  }, 30_000);
  // The task holds until the turn ended; its end then wakes the idle agent (a follow-up turn, the last reply).
  env.llm.setScript(call('bg1', { command: 'while [ ! -f go1 ]; do sleep 0.05; done; echo started', run_in_background: true }), scripts.helloText, say('noted'));
  await prompt(env, 'background');
  await turnsDone(1);
  const tasks = async () => (await s.get(`/api/v1/sessions/${sid}/tasks`)).data.items;
  const first = await until(async () => (await tasks()).find((x: any) => x.parent_tool_call_id === 'bg1'), 30_000);
  t.is(first.kind, 'bash');
  let d = await sameAsRest(t, c, s, sid, 'run_in_background');
  t.is(toolFrameOf(d, 'bg1').taskId, first.id);
  t.true(opsOf(c).some((o) => o.op === 'frame.upsert' && o.frame.toolCallId === 'bg1' && o.frame.taskId === first.id));
  t.is(d.tasks.find((x: any) => x.taskId === first.id).parent_tool_call_id, 'bg1');
  await writeFile(path.join(cwd, 'go1'), '');
  await turnsDone(2);
  await transcriptIdle(s, sid);

  // A foreground call whose timeout passes moves to the background (bash_auto_background_on_timeout, the default).
  env.llm.setScript(call('fg1', { command: 'for i in $(seq 1 400); do [ -f go ] && break; sleep 0.05; done; echo late', timeout: 300 }), scripts.helloText, say('noted again'));
  await prompt(env, 'slow one');
  // The session stays busy while the moved task runs: wait for the turn's end in the transcript.
  await turnsDone(3);
  const moved = await until(async () => (await tasks()).find((x: any) => x.parent_tool_call_id === 'fg1'), 30_000);
  d = await sameAsRest(t, c, s, sid, 'moved to the background');
  t.is(toolFrameOf(d, 'fg1').taskId, moved.id);
  t.regex(String(toolFrameOf(d, 'fg1').output), new RegExp(`moved to background as task ${moved.id}`));
  await writeFile(path.join(cwd, 'go'), '');
  // task.terminated (what the transcript shows) is journaled just after the task's REST status changes.
  await until(async () => (await restTranscript(s, sid)).tasks.every((x: any) => x.state !== 'running') || undefined, 30_000);
  await turnsDone(4);
  d = await sameAsRest(t, c, s, sid, 'both tasks ended');
  t.deepEqual(d.tasks.filter((x: any) => x.kind === 'shell').map((x: any) => x.state).sort(), ['completed', 'completed']);

  // A fold of the journal after a restart names the tasks too.
  await c.ws.close();
  const s2 = await s.restart();
  t.teardown(() => s2.stop());
  const r = await restTranscript(s2, sid);
  t.is(toolFrameOf(r, 'bg1').taskId, first.id);
  t.is(toolFrameOf(r, 'fg1').taskId, moved.id);
});
