import { spawnSync } from 'node:child_process';
import path from 'node:path';
import test from 'ava';
import { daemonEnv, launch, ROOT } from '../helpers/built.ts';
import { tempHome } from '../helpers/server.ts';

const CLI = [process.execPath, '--import', 'tsx', path.join(ROOT, 'src/cli/main.ts')];

test('serve is the default command: `svc-code --port 0` serves as `svc-code serve --port 0` does', async (t) => {
  const home = await tempHome();
  const daemon = await launch([...CLI, '--port', '0'], { cwd: ROOT, env: daemonEnv(home), listenMs: 90_000 });
  t.teardown(() => daemon.stop('SIGKILL'));
  t.regex(daemon.baseUrl, /^http:\/\/127\.0\.0\.1:\d+$/);
  t.is(await daemon.stop(), 0);
});

test('an unknown serve option is a one-line error naming it, not a usage dump of "unknown command"', async (t) => {
  const r = spawnSync(CLI[0]!, [...CLI.slice(1), '--prot', '8000'], { cwd: ROOT, env: daemonEnv(await tempHome()), encoding: 'utf8' });
  t.not(r.status, 0);
  t.regex(r.stderr, /--prot/);
  t.notRegex(r.stderr, /unknown command/);
});
