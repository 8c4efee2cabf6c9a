import test, { type ExecutionContext } from 'ava';
import { scripts } from '../../fixtures/llm/index.ts';
import { journal, prompt, startEngine, YOLO, type EngineEnv } from '../helpers/engine.ts';
import { newSession } from '../helpers/server.ts';
import { until } from '../helpers/wait.ts';

// The Bash deletion check (src/tools/file-history.ts, docs/file-history.md "Deletions") with more sessions active
// than the file history keeps folded (8): it reads the paths kept per session (projections/file-history/
// existing-paths.ts), not the session's history, unless a file is gone (its last content) or the paths are not
// known (after a restart: one fold).

const call = (id: string, name: string, args: unknown) => ({ events: [{ tool_call: { id, name, args } }] });

/** Counts the history reads of `sid` (each a fold when the session is not kept). */
function countReads(env: EngineEnv, sid: string): { n: number } {
  const fh = env.s.fileHistory;
  const read = fh.read.bind(fh);
  const count = { n: 0 };
  fh.read = (stream, view) => {
    if (stream === sid) count.n += 1;
    return read(stream, view);
  };
  return count;
}

const mainTurnsEnded = async (env: EngineEnv) => (await journal(env)).filter((e) => e.type === 'turn.ended' && e.payload.agent_id === 'main').length;

/** The session's nth turn (0-based): the model makes these tool calls, then answers; waits for the turn's end. */
async function turnOfCalls(t: ExecutionContext, env: EngineEnv, n: number, text: string, calls: ReturnType<typeof call>[]): Promise<void> {
  env.llm.setScript(...calls, scripts.helloText);
  t.is((await prompt(env, text)).code, 0);
  await until(async () => (await mainTurnsEnded(env)) === n + 1, 30_000, `turn ${n} ended`);
}

test('file-history: the Bash deletion check reads no history while nothing is gone, with more sessions active than folds kept; after a restart one fold', async (t) => {
  const env = await startEngine(t, { extraToml: YOLO });
  const url = (q: string) => `/api/v1/sessions/${env.sid}/file-history/${q}`;
  const statuses = async (turn: number) => (await env.s.get(url(`changes?turn_id=${turn}`))).data.changes.map((c: any) => [c.path, c.status]);
  let reads = countReads(env, env.sid);

  // t0: a Bash before any write (nothing to check), two files written, a Bash that removes nothing.
  await turnOfCalls(t, env, 0, 'write two files', [
    call('b0', 'Bash', { command: 'echo first' }),
    call('w1', 'Write', { file_path: 'keep.txt', content: 'k\n' }),
    call('w2', 'Write', { file_path: 'gone.txt', content: 'x\ny\n' }),
    call('b1', 'Bash', { command: 'echo nothing removed' }),
  ]);
  t.is(reads.n, 0, 'no history read for either check');

  // Nine other sessions read: the history keeps 8 folds, so this session's is dropped.
  for (let i = 0; i < 9; i++) {
    const other = await newSession(env.s);
    t.is((await env.s.get(`/api/v1/sessions/${other}/file-history/changes?turn_id=0`)).code, 0);
  }
  t.is(env.s.fileHistory.peek(env.sid), undefined, 'the session\'s history is no longer folded');

  // t1: a Bash that removes nothing, one that removes gone.txt: one read, for gone.txt's last content.
  await turnOfCalls(t, env, 1, 'remove one', [
    call('b2', 'Bash', { command: 'echo still nothing' }),
    call('b3', 'Bash', { command: 'rm gone.txt' }),
  ]);
  t.is(reads.n, 1, 'one history read: the removed file\'s last content');
  t.deepEqual(await statuses(1), [['gone.txt', 'deleted']]);

  // After a restart the paths are not known: the first check folds the session once, the next ones do not.
  await env.ws.close();
  env.s = await env.s.restart();
  env.ws = await env.s.ws();
  reads = countReads(env, env.sid);
  await turnOfCalls(t, env, 2, 'remove the other', [
    call('b4', 'Bash', { command: 'echo after restart' }),
    call('b5', 'Bash', { command: 'rm keep.txt' }),
    call('b6', 'Bash', { command: 'echo and again' }),
  ]);
  t.is(reads.n, 2, 'one fold for the paths, one read for keep.txt\'s last content');
  t.deepEqual(await statuses(2), [['keep.txt', 'deleted']]);
  t.deepEqual(await statuses(1), [['gone.txt', 'deleted']], 'earlier turns unchanged');
});
