import { readFile } from 'node:fs/promises';
import path from 'node:path';
import test from 'ava';
import { startEngine } from '../helpers/engine.ts';
import { alive, runBash } from '../helpers/bash.ts';
import { until } from '../helpers/wait.ts';

const YOLO = 'default_permission_mode = "yolo"';

const bash = runBash;

test('Bash runs in the workspace root and reports interleaved output and the exit code', async (t) => {
  const env = await startEngine(t, { extraToml: YOLO });
  const cwd = env.s.sessions.get(env.sid)!.cwd;
  const ok = await bash(env, { command: 'echo out; echo err >&2; pwd' }, 1);
  t.false(ok.is_error);
  t.is(ok.content, `out\nerr\n${cwd}\n[exit code 0]`);
  const failed = await bash(env, { command: 'echo bye; exit 3' }, 2);
  t.is(failed.content, 'bye\n[exit code 3]');
  const live = env.ws.frames.filter((f) => f.type === 'tool.progress' && f.payload.tool_call_id === 'b1');
  t.true(live.length > 0);
  t.like(live[0].payload, { agent_id: 'main', tool_name: 'Bash' });
  t.true(live.map((f) => f.payload.output).join('').startsWith('out\n'));
});

test('Bash output over the budget keeps head and tail with a marker', async (t) => {
  const env = await startEngine(t, { extraToml: YOLO });
  const r = await bash(env, { command: 'echo START; head -c 100000 /dev/zero | tr "\\0" a; echo; echo END' });
  t.true(r.content.length <= 30_000 + 50);
  t.true(r.content.startsWith('START\naaa'));
  t.regex(r.content, /\.\.\. \[\d+ characters truncated\] \.\.\./);
  t.is(r.content.slice(-30), `${'a'.repeat(12)}\nEND\n[exit code 0]`);
});

test('Bash timeout kills the whole process group, even a child ignoring TERM', async (t) => {
  const env = await startEngine(t, { extraToml: `${YOLO}\n[background]\nbash_auto_background_on_timeout = false` });
  const cwd = env.s.sessions.get(env.sid)!.cwd;
  const r = await bash(env, { command: `(trap '' TERM; sleep 30) & echo $! > child.pid; echo started; sleep 30`, timeout: 2000 });
  t.true(r.is_error);
  t.regex(r.content, /^started\n\[timed out after 2000 ms; process group killed\]$/);
  const pid = Number(await readFile(path.join(cwd, 'child.pid'), 'utf8'));
  t.true(pid > 0);
  await until(() => !alive(pid), 30_000);
  t.false(alive(pid));
});

test('Bash input is validated: timeout above the maximum names the field', async (t) => {
  const env = await startEngine(t, { extraToml: YOLO });
  const r = await bash(env, { command: 'true', timeout: 600_001 });
  t.true(r.is_error);
  t.regex(r.content, /invalid input for Bash: timeout:/);
});
