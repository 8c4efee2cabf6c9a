import test from 'ava';
import { existsSync } from 'node:fs';
import { lstat, mkdir, mkdtemp, readFile, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { scripts } from '../../fixtures/llm/index.ts';
import { replaySession } from '../../src/replay/run.ts';
import { readSettings } from '../../src/app/settings.ts';
import { exportZip } from '../helpers/archive.ts';
import { journal, prompt, startEngine, turnEnded } from '../helpers/engine.ts';

// `svc-code replay --tools live` rolls the recorded files back in a scratch copy of the workspace, which keeps the
// workspace's symlinks (src/replay/run.ts rollBack): nothing is written, created or removed through a symlink
// that leads outside the copy.

const call = (id: string, name: string, args: unknown) => ({ events: [{ tool_call: { id, name, args } }] });

/** Every file and directory under `dir` with its content ('<dir>' for a directory). */
async function tree(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const e of await readdir(dir, { withFileTypes: true, recursive: true })) {
    const p = path.join(e.parentPath, e.name);
    out[path.relative(dir, p)] = e.isDirectory() ? '<dir>' : await readFile(p, 'utf8');
  }
  return out;
}

test('replay --tools live: the roll-back neither writes, creates nor removes anything through a symlink leading outside the copy', async (t) => {
  t.timeout(60_000);
  const env = await startEngine(t, { extraToml: 'default_permission_mode = "yolo"' });
  const cwd = (await env.s.get(`/api/v1/sessions/${env.sid}`)).data.metadata.cwd as string;
  await mkdir(path.join(cwd, 'sub'));
  await mkdir(path.join(cwd, 'deep', 'er'), { recursive: true });
  await writeFile(path.join(cwd, 'sub', 'a.txt'), 'a before\n');
  await writeFile(path.join(cwd, 'deep', 'er', 'c.txt'), 'c before\n');
  await writeFile(path.join(cwd, 'b.txt'), 'b before\n');
  await writeFile(path.join(cwd, 'plain.txt'), 'plain before\n');
  // Recorded: files changed (a.txt, c.txt, b.txt, plain.txt existed) and one created (sub/new.txt).
  // Each existing file is read first (an unread file may not be overwritten).
  env.llm.setScript(
    call('r1', 'Read', { file_path: 'sub/a.txt' }),
    call('r2', 'Read', { file_path: 'deep/er/c.txt' }),
    call('r3', 'Read', { file_path: 'b.txt' }),
    call('r5', 'Read', { file_path: 'plain.txt' }),
    call('w1', 'Write', { file_path: 'sub/a.txt', content: 'a after\n' }),
    call('w2', 'Write', { file_path: 'deep/er/c.txt', content: 'c after\n' }),
    call('w3', 'Write', { file_path: 'b.txt', content: 'b after\n' }),
    call('w4', 'Write', { file_path: 'sub/new.txt', content: 'new\n' }),
    call('w5', 'Write', { file_path: 'plain.txt', content: 'plain after\n' }),
    scripts.helloText,
  );
  t.is((await prompt(env, 'change the files')).code, 0);
  await turnEnded(env, 1, 30_000);
  t.is((await journal(env)).filter((e) => e.type === 'file.changed').length, 5, 'five changes recorded');
  const zip = await exportZip(env.s, env.sid);

  // Today's workspace: sub/ and deep/ are symlinks to directories outside, b.txt a symlink to a file outside.
  const outside = await mkdtemp(path.join(os.tmpdir(), 'replay-outside-'));
  t.teardown(() => rm(outside, { recursive: true, force: true }));
  await mkdir(path.join(outside, 'dir'));
  await mkdir(path.join(outside, 'empty'));
  await writeFile(path.join(outside, 'dir', 'a.txt'), 'outside a\n');
  await writeFile(path.join(outside, 'dir', 'new.txt'), 'outside new\n');
  await writeFile(path.join(outside, 'b.txt'), 'outside b\n');
  await rm(path.join(cwd, 'sub'), { recursive: true });
  await rm(path.join(cwd, 'deep'), { recursive: true });
  await rm(path.join(cwd, 'b.txt'));
  await symlink(path.join(outside, 'dir'), path.join(cwd, 'sub'));
  await symlink(path.join(outside, 'empty'), path.join(cwd, 'deep'));
  await symlink(path.join(outside, 'b.txt'), path.join(cwd, 'b.txt'));
  const before = await tree(outside);

  const report = await replaySession({ zip, tools: 'live', keep: true, stallMs: 10_000, log: pino({ level: 'silent' }), settings: readSettings(process.env) });
  t.teardown(() => rm(report.home!, { recursive: true, force: true }));
  const scratch = report.workspace.scratch;
  t.is(report.workspace.source, cwd);

  t.deepEqual(await tree(outside), before, 'nothing outside the copy was written, created or removed');
  // Inside the copy: the file in a symlink's place is replaced by its recorded content; a plain file rolled back.
  t.false((await lstat(path.join(scratch, 'b.txt'))).isSymbolicLink());
  t.true((await lstat(path.join(scratch, 'sub'))).isSymbolicLink(), 'a symlinked directory is left as it is');
  t.false(existsSync(path.join(outside, 'empty', 'er')));
  t.log(report.divergence ? `diverged at ${report.divergence.index}: ${report.divergence.field}` : 'no divergence');
  t.is(report.turns.replayed, 1);
  // The replayed Writes ran in the copy (the ones through an escaping symlink refused by the tools' confinement).
  t.is(await readFile(path.join(scratch, 'plain.txt'), 'utf8'), 'plain after\n');
  t.is(await readFile(path.join(scratch, 'b.txt'), 'utf8'), 'b after\n');
});
