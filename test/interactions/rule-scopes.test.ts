import test from 'ava';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { newSession, serverFor, type TestServer } from '../helpers/server.ts';

const CTX = { agentId: 'main', readOnly: false, turnId: 'turn_1' };
const bash = (command: string) => ({ id: 'call_1', name: 'Bash', input: { command } });

async function decision(s: TestServer, sid: string, command: string): Promise<string> {
  return (await s.permissions.check(sid, bash(command), CTX)).decision;
}

test('a rule of a narrower scope wins over an earlier user rule; the default scope is user', async (t) => {
  const s = await serverFor(t, {
    config: `default_permission_mode = "auto"
[[permission.rules]]
pattern = "Bash(npm *)"
decision = "allow"

[[permission.rules]]
pattern = "Bash(npm publish)"
decision = "deny"
scope = "session-runtime"
`,
  });
  const sid = await newSession(s);
  t.is(await decision(s, sid, 'npm test'), 'allow');
  t.is(await decision(s, sid, 'npm publish'), 'deny', 'the session-runtime rule is matched before the user rule listed first');
});

test('project rules live with the workspace: its local.toml rules act in its sessions only, and only while it is trusted', async (t) => {
  const s = await serverFor(t, { config: 'default_permission_mode = "yolo"\n' });
  const sid = await newSession(s);
  const other = await newSession(s);
  const ws = s.sessions.get(sid)!;
  await mkdir(path.join(ws.cwd, '.svc-code'), { recursive: true });
  await writeFile(path.join(ws.cwd, '.svc-code', 'local.toml'), '[[permission.rules]]\npattern = "Bash(make *)"\ndecision = "deny"\nreason = "the project builds in CI"\n');
  t.is(await decision(s, sid, 'make all'), 'allow', 'an untrusted workspace\'s rules do not count');
  t.is((await s.post(`/api/v1/workspaces/${ws.workspace_id}/trust`)).code, 0);
  const denied = await s.permissions.check(sid, bash('make all'), CTX);
  t.is(denied.decision, 'deny', 'a deny rule holds even in yolo');
  t.regex((denied as { message: string }).message, /Bash\(make \*\).*the project builds in CI/);
  t.not(s.sessions.get(other)!.workspace_id, ws.workspace_id);
  t.is(await decision(s, other, 'make all'), 'allow', 'another workspace does not get them');
});
