import test from 'ava';
import { spawn } from 'node:child_process';
import { readFile, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { LockTimeoutError, withFileLock } from '../../src/lib/file-lock.ts';
import { ROOT } from '../helpers/built.ts';
import { scratchDir } from '../helpers/fs.ts';

const LOCK = path.join(ROOT, 'src/lib/file-lock.ts');

/** A child process that adds 1 to the number in `counter` `times` times, each a read, a pause and a write under the lock. */
function incrementer(dir: string, times: number, locked: boolean): Promise<number | null> {
  const code = `
    import { readFile, writeFile } from 'node:fs/promises';
    import { setTimeout as sleep } from 'node:timers/promises';
    import { withFileLock } from ${JSON.stringify(LOCK)};
    const counter = ${JSON.stringify(path.join(dir, 'counter'))};
    const bump = async () => {
      const n = Number(await readFile(counter, 'utf8'));
      await sleep(2);
      await writeFile(counter, String(n + 1));
    };
    for (let i = 0; i < ${times}; i++) ${locked ? `await withFileLock(${JSON.stringify(path.join(dir, 'counter.lock'))}, bump, { timeoutMs: 120000 })` : 'await bump()'};
  `;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], { cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit'] });
  return new Promise((resolve) => child.on('exit', (c) => resolve(c)));
}

async function race(t: import('ava').ExecutionContext, locked: boolean): Promise<number> {
  const dir = await scratchDir(t);
  await writeFile(path.join(dir, 'counter'), '0');
  const codes = await Promise.all([1, 2, 3].map(() => incrementer(dir, 15, locked)));
  t.deepEqual(codes, [0, 0, 0]);
  return Number(await readFile(path.join(dir, 'counter'), 'utf8'));
}

test('three processes doing read-modify-write under the lock lose no update', async (t) => {
  t.timeout(180_000, 'three node processes start slowly on a loaded machine');
  // (Run with `locked` false, the same race loses updates: how this test was seen to fail.)
  t.is(await race(t, true), 45);
});

test('a lock left by a dead process is taken over at once', async (t) => {
  const dir = await scratchDir(t);
  const lock = path.join(dir, 'x.lock');
  const dead = spawn(process.execPath, ['-e', '']);
  const pid = dead.pid!;
  await new Promise((r) => dead.on('exit', r));
  await writeFile(lock, JSON.stringify({ pid, at: Date.now(), token: 'old' }));
  t.is(await withFileLock(lock, async () => 'ran', { timeoutMs: 2_000 }), 'ran');
  t.deepEqual(await readdir(dir), [], 'released, and nothing left aside');
});

test('a lock older than staleMs is taken over even if its pid exists; a fresh one held by a live process times out with who holds it', async (t) => {
  const dir = await scratchDir(t);
  const lock = path.join(dir, 'x.lock');
  await writeFile(lock, JSON.stringify({ pid: process.pid, at: Date.now() - 60_000, token: 'old' }));
  t.is(await withFileLock(lock, async () => 1, { timeoutMs: 2_000, staleMs: 30_000 }), 1);

  const at = Date.now();
  await writeFile(lock, JSON.stringify({ pid: process.pid, at, token: 'held' }));
  const err = await t.throwsAsync(withFileLock(lock, async () => 1, { timeoutMs: 300 }), { instanceOf: LockTimeoutError });
  t.is(err!.holder?.pid, process.pid);
  t.regex(err!.message, new RegExp(`x\\.lock is held by process ${process.pid} since ${new Date(at).toISOString()}`));
  t.is(JSON.parse(await readFile(lock, 'utf8')).token, 'held', 'a holder\'s lock is never removed by a waiter');
});

test('a holder taken over as stale does not remove its successor\'s lock when it finishes', async (t) => {
  const dir = await scratchDir(t);
  const lock = path.join(dir, 'x.lock');
  let successor = '';
  await withFileLock(lock, async () => {
    // Meanwhile this holder is judged stale and another takes the lock.
    await writeFile(lock, JSON.stringify({ pid: process.pid, at: Date.now(), token: 'successor' }));
    successor = 'set';
  });
  t.is(successor, 'set');
  t.is(JSON.parse(await readFile(lock, 'utf8')).token, 'successor');
});
