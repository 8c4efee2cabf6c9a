import { readFile } from 'node:fs/promises';
import path from 'node:path';
import test from 'ava';
import { describeUrl, hasPassword, journalIdentity } from '../../journal/pg/open.ts';
import { childEnv, PRIVATE_ENV } from '../../src/lib/child-env.ts';
import { runBash } from '../helpers/bash.ts';
import { startEngine } from '../helpers/engine.ts';
import { TEST_TOKEN } from '../helpers/server.ts';
import { until } from '../helpers/wait.ts';

// The daemon's secrets (its access token, the journal URL with a database password) never reach a child process:
// the agent's Bash commands and background tasks, hooks and terminals run what the model or the user typed, and
// anything they print can end up in a transcript, a log or a model request.

const SECRET = 'hunter2-journal-password';
const JOURNAL_URL = `postgres://svc:${SECRET}@127.0.0.1:9/svc_code?password=${SECRET}`;

/** What a child's `env` printed must hold PATH (it ran) and neither secret. */
function assertClean(t: { true(v: boolean, m?: string): void; false(v: boolean, m?: string): void }, what: string, printed: string) {
  t.true(printed.includes('PATH='), `${what}: the command ran and printed its environment`);
  t.false(printed.includes(TEST_TOKEN), `${what}: the access token`);
  t.false(printed.includes(SECRET), `${what}: the journal URL's password`);
  for (const name of PRIVATE_ENV) t.false(printed.includes(`${name}=`), `${what}: ${name}`);
}

const hookToml = '[[hooks]]\nevent = "UserPromptSubmit"\ncommand = "env > hook-env.txt"\n';

test('no child gets the token or the journal URL: the Bash tool, a background task, a hook, a terminal', async (t) => {
  t.timeout(120_000);
  const env = await startEngine(t, { extraToml: `default_permission_mode = "yolo"\n${hookToml}` });
  // Both secrets are in the daemon's environment (the token is how the test server is started).
  t.is(process.env.SVC_CODE_SERVER_TOKEN, TEST_TOKEN);
  process.env.SVC_CODE_JOURNAL_URL = JOURNAL_URL;
  t.teardown(() => { delete process.env.SVC_CODE_JOURNAL_URL; });
  const cwd = env.s.sessions.get(env.sid)!.cwd;

  const bash = await runBash(env, { command: 'env' }, 1);
  assertClean(t, 'Bash', bash.content);
  assertClean(t, 'UserPromptSubmit hook', await readFile(path.join(cwd, 'hook-env.txt'), 'utf8'));

  await runBash(env, { command: 'env > task-env.tmp && mv task-env.tmp task-env.txt', run_in_background: true }, 2);
  const task = await until(() => readFile(path.join(cwd, 'task-env.txt'), 'utf8').catch(() => ''), 30_000, 'the background task\'s output');
  assertClean(t, 'background task', task);

  const term = await env.s.post(`/api/v1/sessions/${env.sid}/terminals`, { shell: '/bin/sh' });
  t.is(term.code, 0, JSON.stringify(term));
  t.is((await env.ws.request('terminal_attach', { terminal_id: term.data.id })).code, 0);
  t.is((await env.ws.request('terminal_input', { terminal_id: term.data.id, data: 'env > term-env.tmp && mv term-env.tmp term-env.txt\r' })).code, 0);
  const shell = await until(() => readFile(path.join(cwd, 'term-env.txt'), 'utf8').catch(() => ''), 30_000, 'the terminal\'s output');
  assertClean(t, 'terminal', shell);
});

test('childEnv drops the private variables, also from what a caller adds, and keeps the rest', (t) => {
  const env = childEnv({ EXTRA: '1', SVC_CODE_JOURNAL_URL: 'x' }, { PATH: '/bin', SVC_CODE_SERVER_TOKEN: 't', SVC_CODE_JOURNAL_URL: JOURNAL_URL, HOME: '/h' });
  t.deepEqual(env, { PATH: '/bin', HOME: '/h', EXTRA: '1' });
});

test('a journal URL in messages: no password, in its user part or its query string', (t) => {
  t.is(describeUrl(JOURNAL_URL), 'postgres://svc@127.0.0.1:9/svc_code');
  t.false(describeUrl('postgresql://u@db/x?sslmode=require&password=p').includes('password'));
  t.true(hasPassword(JOURNAL_URL));
  t.true(hasPassword('postgres://u@db/x?password=p'));
  t.false(hasPassword('postgres://u@db/x?sslmode=require'));
});

test('the journal identity is the URL without its user password, query string kept (existing homes keep their instance id)', (t) => {
  t.is(journalIdentity('postgres://svc:pw@127.0.0.1:9/svc_code?sslmode=require#f'), 'postgres://svc@127.0.0.1:9/svc_code?sslmode=require#f');
  t.is(journalIdentity('postgresql://u@db/x'), 'postgresql://u@db/x');
  t.is(journalIdentity('postgres://:p@h/d'), 'postgres://h/d');
  t.is(journalIdentity('not a url'), '(unparseable URL)');
  t.is(describeUrl('postgres://svc:pw@127.0.0.1:9/svc_code?sslmode=require#f'), 'postgres://svc@127.0.0.1:9/svc_code');
  t.is(describeUrl('not a url'), '(unparseable URL)');
});
