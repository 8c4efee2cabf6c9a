import test from 'ava';
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { serverFor } from '../helpers/server.ts';

test('POST config: a 1 MB string is 40001 naming the field and the limit; nothing is written', async (t) => {
  const s = await serverFor(t);
  const file = path.join(s.home, 'config.toml');
  const before = (await stat(file)).size;
  const mb = 'x'.repeat(1024 * 1024);
  const cases: Array<[object, string, number]> = [
    [{ providers: { p: { type: 'chat_compat', base_url: mb } } }, 'providers.p.base_url', 8192],
    [{ thinking: { keep: mb } }, 'thinking.keep', 256],
    [{ extra_skill_dirs: [mb] }, 'extra_skill_dirs.0', 4096],
    [{ hooks: [{ event: 'PreToolUse', command: mb }] }, 'hooks.0.command', 8192],
    [{ permission: { rules: [{ decision: 'allow', pattern: 'Bash', reason: mb }] } }, 'permission.rules.0.reason', 8192],
    [{ loop_control: { max_steps_per_turn: 1e308 } }, 'loop_control.max_steps_per_turn', Number.MAX_SAFE_INTEGER],
  ];
  for (const [body, field, limit] of cases) {
    const r = await s.post('/api/v1/config', body);
    t.is(r.code, 40001, field);
    t.like(r.details.find((d: { field: string }) => d.field === field), { limit }, field);
  }
  // Unmodeled keys pass through to config.toml: the patch as a whole is bounded.
  const loose = await s.post('/api/v1/config', { thinking: { note: 'y'.repeat(300 * 1024) } });
  t.is(loose.code, 40001);
  t.like(loose.details[0], { limit: 256 * 1024 });
  t.is((await stat(file)).size, before);
});

test('POST config: patches cannot grow config.toml past 1 MiB', async (t) => {
  const s = await serverFor(t);
  const chunk = 'z'.repeat(200 * 1024);
  let last;
  for (let i = 0; i < 8; i++) {
    last = await s.post('/api/v1/config', { thinking: { [`note_${i}`]: chunk } });
    if (last.code !== 0) break;
  }
  t.is(last!.code, 40001);
  t.like(last!.details[0], { limit: 1024 * 1024 });
  t.true((await stat(path.join(s.home, 'config.toml'))).size <= 1024 * 1024);
  t.is((await s.post('/api/v1/config', { telemetry: false })).code, 0);
});
