import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import test from 'ava';
import { scripts } from '../../fixtures/llm/index.ts';
import { prompt, startEngine, turnEnded } from '../helpers/engine.ts';

const call = (id: string, name: string, args: unknown) => ({ events: [{ tool_call: { id, name, args } }] });

test('file-history: per main turn, what Write and Edit changed (status, line counts) and the content at its start and end', async (t) => {
  const env = await startEngine(t, { extraToml: 'default_permission_mode = "yolo"' });
  const cwd = (await env.s.get(`/api/v1/sessions/${env.sid}`)).data.metadata.cwd as string;
  await writeFile(path.join(cwd, 'old.txt'), 'one\ntwo\nthree\n');
  const url = (q: string) => `/api/v1/sessions/${env.sid}/file-history/${q}`;
  t.deepEqual((await env.s.get(url('changes?turn_id=0'))).data, { changes: [], recorded: false });

  // Turn t0: a new file written twice, an existing one edited; t1: nothing written.
  env.llm.setScript(
    call('w1', 'Write', { file_path: 'new.txt', content: 'a\n' }),
    call('w2', 'Write', { file_path: 'new.txt', content: 'a\nb\nc\n' }),
    call('r1', 'Read', { file_path: 'old.txt' }),
    call('e1', 'Edit', { file_path: 'old.txt', old_string: 'two', new_string: 'TWO\nTWO-AND-A-HALF' }),
    scripts.helloText,
    scripts.helloText,
  );
  t.is((await prompt(env, 'change files')).code, 0);
  await turnEnded(env, 1);
  t.is((await prompt(env, 'nothing')).code, 0);
  await turnEnded(env, 2);

  const t0 = (await env.s.get(url('changes?turn_id=0'))).data;
  t.deepEqual(t0, {
    recorded: true,
    changes: [
      { path: 'new.txt', status: 'added', additions: 3, deletions: 0 },
      { path: 'old.txt', status: 'modified', additions: 2, deletions: 1 },
    ],
  });
  t.deepEqual((await env.s.get(url('changes?turn_id=1'))).data, { changes: [], recorded: true });
  t.deepEqual((await env.s.get(url('changes?turn_id=2'))).data, { changes: [], recorded: false });

  const content = async (p: string, phase: string) => (await env.s.get(url(`content?turn_id=0&path=${encodeURIComponent(p)}&phase=${phase}`))).data.content;
  t.is(await content('new.txt', 'start'), null);
  t.like(await content('new.txt', 'end'), { content: 'a\nb\nc\n' });
  t.like(await content('old.txt', 'start'), { content: 'one\ntwo\nthree\n' });
  t.like(await content('old.txt', 'end'), { content: 'one\nTWO\nTWO-AND-A-HALF\nthree\n' });
  t.is(typeof (await content('old.txt', 'end')).version, 'number');
  t.is(await content('other.txt', 'end'), null);

  // The history is a projection of the journal: the same after a restart (a fresh fold).
  await env.ws.close();
  const s2 = await env.s.restart();
  env.s = s2;
  env.ws = await s2.ws();
  t.deepEqual((await s2.get(url('changes?turn_id=0'))).data, t0);

  // Errors: unknown session 40401, bad query 40001; file.changed never reaches a client.
  t.is((await s2.get('/api/v1/sessions/session_nope/file-history/changes?turn_id=0')).code, 40401);
  t.is((await s2.get(url('changes?turn_id=-1'))).code, 40001);
  t.is((await s2.get(url('changes'))).code, 40001);
  t.is((await s2.get(url('content?turn_id=0&path=a&phase=middle'))).code, 40001);
  const replay = await s2.ws();
  t.teardown(() => replay.close());
  const head = s2.journal.head(env.sid)!;
  await replay.request('subscribe', { session_ids: [env.sid], cursors: { [env.sid]: { seq: 0, epoch: head.epoch } } });
  await replay.waitFor((f) => f.session_id === env.sid && f.seq === head.seq);
  t.true(replay.frames.some((f) => f.type === 'tool.result'), 'the replay went through the turn');
  t.false(replay.frames.some((f) => f.type === 'file.changed'));
});

test('file-history: a file the agent wrote and a Bash command removed is `deleted` in that turn; created and removed in one turn is no change', async (t) => {
  const env = await startEngine(t, { extraToml: 'default_permission_mode = "yolo"' });
  const url = (q: string) => `/api/v1/sessions/${env.sid}/file-history/${q}`;
  env.llm.setScript(
    call('w1', 'Write', { file_path: 'keep.txt', content: 'k\n' }),
    call('w2', 'Write', { file_path: 'gone.txt', content: 'x\ny\n' }),
    scripts.helloText,
    // t1: gone.txt removed by Bash; tmp.txt written and removed within the turn.
    call('b1', 'Bash', { command: 'rm gone.txt' }),
    call('w3', 'Write', { file_path: 'tmp.txt', content: 'tmp\n' }),
    call('b2', 'Bash', { command: 'rm tmp.txt && echo ok' }),
    scripts.helloText,
  );
  t.is((await prompt(env, 'write two files')).code, 0);
  await turnEnded(env, 1);
  t.is((await prompt(env, 'remove one')).code, 0);
  await turnEnded(env, 2);

  t.deepEqual((await env.s.get(url('changes?turn_id=1'))).data, {
    recorded: true,
    changes: [{ path: 'gone.txt', status: 'deleted', additions: 0, deletions: 2 }],
  });
  const content = async (p: string, phase: string) => (await env.s.get(url(`content?turn_id=1&path=${encodeURIComponent(p)}&phase=${phase}`))).data.content;
  t.like(await content('gone.txt', 'start'), { content: 'x\ny\n' });
  t.is(await content('gone.txt', 'end'), null, 'no content at the end: the file is gone');
  // Turn 0 is unchanged by a later deletion, and keep.txt (still there) is never recorded again.
  t.deepEqual((await env.s.get(url('changes?turn_id=0'))).data.changes.map((c: any) => [c.path, c.status]), [['gone.txt', 'added'], ['keep.txt', 'added']]);

  // Read twice: the same answer (the line counts are computed once per entry and kept).
  t.deepEqual((await env.s.get(url('changes?turn_id=1'))).data.changes, [{ path: 'gone.txt', status: 'deleted', additions: 0, deletions: 2 }]);
});
