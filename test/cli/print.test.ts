import test from 'ava';
import { closeSync, openSync } from 'node:fs';
import { scripts } from '../../fixtures/llm/index.ts';
import { scratchDir } from '../helpers/fs.ts';
import { buildOnce, jsonLines, printEnv, runPrint } from '../helpers/print.ts';
import { cli } from '../helpers/cli.ts';
import { BACKENDS, serveOptions } from '../helpers/journal.ts';

// svc-code -p as users run it (the built bin, a child process), the fixture LLM upstream: output formats, exit
// statuses, the prompt from standard input, bad input.

test.before(() => buildOnce());

const word = { events: [{ text: 'Paris' }], usage: { input: 7, output: 1 } };
const lastUserText = (body: any) => {
  const users = body.messages.filter((m: any) => m.role === 'user');
  const c = users.at(-1).content;
  return typeof c === 'string' ? c : c.map((p: any) => p.text ?? '').join('');
};

test('text: only the final assistant text on stdout, nothing on stderr, exit 0', async (t) => {
  const env = await printEnv(t);
  env.llm.setScript(word);
  const r = await runPrint(env, ['-p', 'Capital of France? One word.']);
  t.is(r.code, 0, r.stderr);
  t.is(r.stdout, 'Paris\n');
  t.is(r.stderr, '');
  t.is(lastUserText(env.llm.requests[0]!.body), 'Capital of France? One word.');
});

test('json: one object at the end with the session, result, reason, usage, duration and turns; `svc-code print` is the same command', async (t) => {
  const env = await printEnv(t);
  env.llm.setScript(word);
  const r = await runPrint(env, ['print', 'Capital of France?', '--output-format', 'json']);
  t.is(r.code, 0, r.stderr);
  const lines = r.stdout.trim().split('\n');
  t.is(lines.length, 1);
  const o = JSON.parse(lines[0]!);
  t.like(o, { type: 'result', result: 'Paris', reason: 'completed', num_turns: 1, usage: { input_tokens: 7, output_tokens: 1, cache_read_tokens: 0, cache_creation_tokens: 0 } });
  t.regex(o.session_id, /^session_/);
  t.true(Number.isInteger(o.duration_ms) && o.duration_ms >= 0);
  t.false('error' in o);
});

// Print mode journals where the daemon would: the home's LevelDB, or the database of SVC_CODE_JOURNAL_URL.
for (const backend of BACKENDS) {
  test(`[${backend}] the session print mode ran is in the journal it was given, for journal dump to read`, async (t) => {
    t.timeout(300_000); // the build when stale, print mode and journal dump, each a node start
    const env = await printEnv(t);
    const { journalUrl } = await serveOptions(backend);
    const vars: Record<string, string> = journalUrl ? { SVC_CODE_JOURNAL_URL: journalUrl } : {};
    env.llm.setScript(word);
    const r = await runPrint(env, ['-p', 'Capital of France?', '--output-format', 'json'], { env: vars });
    t.is(r.code, 0, r.stderr);
    const sid = JSON.parse(r.stdout.trim()).session_id;
    const dump = await cli(env.home, ['journal', 'dump', sid], vars);
    t.is(dump.code, 0, dump.stderr);
    const types = dump.stdout.trim().split('\n').map((l) => JSON.parse(l).type);
    t.is(types[0], 'session.created');
    t.true(types.includes('turn.ended'));
  });
}

test('stream-json: the WebSocket frames of the session as they happen (creation first, deltas volatile), then the result', async (t) => {
  const env = await printEnv(t);
  env.llm.setScript(scripts.helloText);
  const r = await runPrint(env, ['-p', 'hi', '--output-format', 'stream-json']);
  t.is(r.code, 0, r.stderr);
  const lines = jsonLines(r.stdout);
  const result = lines.at(-1);
  t.like(result, { type: 'result', result: 'Hello, world', reason: 'completed', num_turns: 1 });
  const frames = lines.slice(0, -1);
  t.is(frames[0].type, 'session.created');
  for (const f of frames) t.is(f.session_id, result.session_id);
  const durable = frames.filter((f) => !f.volatile);
  t.deepEqual(durable.map((f) => f.seq), durable.map((_, i) => i + 1), 'every durable event of the session, in order, once');
  const types = frames.map((f) => f.type);
  for (const type of ['prompt.accepted', 'turn.started', 'turn.step.started', 'message.created', 'turn.step.completed', 'turn.ended']) t.true(types.includes(type), type);
  const deltas = frames.filter((f) => f.type === 'assistant.delta');
  t.deepEqual(deltas.map((f) => f.payload.text).join(''), 'Hello, world');
  t.true(deltas.every((f) => f.volatile === true && typeof f.offset === 'number'));
  t.true(types.indexOf('assistant.delta') > types.indexOf('turn.step.started') && types.indexOf('assistant.delta') < types.indexOf('turn.ended'));
  // The client superset of the wire payloads (camelCase ids, sessionId): the same builder as the WebSocket's.
  t.like(frames.find((f) => f.type === 'turn.ended').payload, { reason: 'completed', sessionId: result.session_id });
});

test('the prompt from standard input: absent, or `-`', async (t) => {
  const env = await printEnv(t);
  env.llm.setScript(word, word);
  const piped = await runPrint(env, ['-p'], { stdin: 'Capital of France?\nOne word.\n' });
  t.is(piped.code, 0, piped.stderr);
  t.is(piped.stdout, 'Paris\n');
  t.is(lastUserText(env.llm.requests[0]!.body), 'Capital of France?\nOne word.\n');
  const dash = await runPrint(env, ['-p', '-', '--output-format', 'json'], { stdin: 'from a pipe' });
  t.is(dash.code, 0, dash.stderr);
  t.is(lastUserText(env.llm.requests[1]!.body), 'from a pipe');
});

test('exit 1 when the turn fails: the provider\'s error on stderr, json reason failed', async (t) => {
  const env = await printEnv(t);
  env.llm.setScript(scripts.badRequest, scripts.badRequest);
  const text = await runPrint(env, ['-p', 'hi']);
  t.is(text.code, 1);
  t.is(text.stdout, '');
  t.regex(text.stderr, /^svc-code: the turn failed: .*bad tool schema/m);
  const json = await runPrint(env, ['-p', 'hi', '--output-format', 'json']);
  t.is(json.code, 1);
  t.like(JSON.parse(json.stdout), { reason: 'failed', num_turns: 1, error: { kind: 'bad_request' } });
});

test('exit 2 on a usage error, with one line on stderr and nothing run', async (t) => {
  const env = await printEnv(t);
  const cases: Array<[string[], RegExp, { stdin?: string }?]> = [
    [['-p', 'hi', '--bogus'], /Unknown option '--bogus'/],
    [['-p', 'hi', '--output-format', 'xml'], /invalid --output-format: xml/],
    [['-p', 'hi', '--permission-mode', 'sometimes'], /invalid --permission-mode: sometimes/],
    [['-p', 'hi', '--yolo', '--permission-mode', 'manual'], /--yolo contradicts/],
    [['-p', 'hi', '--max-turns', '-1'], /--max-turns/],
    [['-p', 'hi', '--max-turns', 'x'], /invalid --max-turns: x/],
    [['-p', 'hi', '--continue', '--session', 'session_x'], /cannot be combined/],
    [['-p', 'hi', '--model', 'nope/model'], /unknown model: nope\/model \(configured: fx\/model\)/],
    [['-p', 'hi', '--cwd', '/no/such/dir'], /no such directory: \/no\/such\/dir/],
    [['-p', 'hi', '--session', 'session_unknown'], /no such session on this home: session_unknown/],
    [['-p', 'hi', '--continue'], /no session to continue in /],
    [['-p'], /the prompt is empty/, { stdin: '  \n' }],
  ];
  for (const [args, message, opts] of cases) {
    const r = await runPrint(env, args, opts);
    t.is(r.code, 2, args.join(' '));
    t.regex(r.stderr, message);
    t.is(r.stderr.trim().split('\n').length, 1, `one line: ${r.stderr}`);
    t.is(r.stdout, '');
  }
  t.is(env.llm.requests.length, 0);
});

test('exit 2 on an unreadable standard input (a directory)', async (t) => {
  const env = await printEnv(t);
  const dir = await scratchDir(t);
  const fd = openSync(dir, 'r');
  try {
    const r = await runPrint(env, ['-p'], { stdin: fd });
    t.is(r.code, 2);
    t.regex(r.stderr, /^svc-code: cannot read the prompt from standard input: .*EISDIR/);
  } finally {
    closeSync(fd);
  }
});

test('exit 1 with one line when the provider has no API key; no session is left behind', async (t) => {
  const env = await printEnv(t);
  const { writeFile } = await import('node:fs/promises');
  const path = await import('node:path');
  await writeFile(path.join(env.home, 'config.toml'), `default_model = "fx/model"\n[providers.fx]\ntype = "chat_compat"\nbase_url = "${env.llm.url}/v1"\n[models."fx/model"]\nprovider = "fx"\nmodel = "m"\nmax_context_size = 1000\n`);
  const r = await runPrint(env, ['-p', 'hi']);
  t.is(r.code, 1);
  t.is(r.stderr, `svc-code: provider fx has no API key: set api_key in [providers.fx] of ${path.join(env.home, 'config.toml')}\n`);
  const again = await runPrint(env, ['-p', 'hi', '--continue']);
  t.regex(again.stderr, /no session to continue/);
});

test('--help documents print mode; svc-code --help names it', async (t) => {
  const env = await printEnv(t);
  const r = await runPrint(env, ['-p', '--help']);
  t.is(r.code, 0);
  for (const s of ['--output-format', 'stream-json', '--continue', '--session', '--max-turns', '--yolo', 'print_background_mode', 'exit status']) t.true(r.stdout.includes(s), s);
  const top = await runPrint(env, ['--help']);
  t.regex(top.stdout, /svc-code -p \[PROMPT\]/);
});
