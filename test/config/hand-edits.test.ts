import test from 'ava';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parse } from 'smol-toml';
import { loginApproved, startLoginHarness } from '../helpers/login.ts';
import { api, spawnDaemon } from '../helpers/process.ts';
import { startTestServer, tempHome, type TestServer } from '../helpers/server.ts';

const CONFIG = '/api/v1/config';
const configText = (s: { home: string }) => readFile(path.join(s.home, 'config.toml'), 'utf8');

/** Whether every line of `lines` appears in `text`, in order (other lines may come between). */
function keptInOrder(text: string, lines: string[]): boolean {
  const out = text.split('\n');
  let i = 0;
  for (const line of out) if (i < lines.length && line === lines[i]) i++;
  return i === lines.length;
}

/** A hand edit of the kind a person makes: comments, a key the daemon does not know, blank lines, tables in their own order. */
const HAND_EDIT = [
  '# My settings: edited by hand while the daemon runs.',
  '',
  'my_own_key = "kept"   # not a setting the daemon knows',
  "auto_session_title = false",
  '',
  '',
  '# thinking before loop_control, on purpose',
  '[thinking]',
  "effort = 'high'",
  '',
  '[loop_control]',
  '# three is enough',
  'max_attempts_per_step = 3',
  '',
  '[my_table]',
  'a = [ 1, 2 ]',
];

test('a hand edit made while the daemon runs survives a config patch byte for byte, but for the keys the patch sets', async (t) => {
  const s = await startTestServer();
  t.teardown(() => s.stop());
  await writeFile(path.join(s.home, 'config.toml'), `${HAND_EDIT.join('\n')}\n`);
  const res = await s.post(CONFIG, { loop_control: { compaction_max_attempts: 7 }, thinking: { effort: 'low' }, telemetry: false });
  t.is(res.code, 0);
  t.is(await configText(s), [
    '# My settings: edited by hand while the daemon runs.',
    '',
    'my_own_key = "kept"   # not a setting the daemon knows',
    'auto_session_title = false',
    'telemetry = false',
    '',
    '',
    '# thinking before loop_control, on purpose',
    '[thinking]',
    'effort = "low"',
    '',
    '[loop_control]',
    '# three is enough',
    'max_attempts_per_step = 3',
    'compaction_max_attempts = 7',
    '',
    '[my_table]',
    'a = [ 1, 2 ]',
    '',
  ].join('\n'));
  // The daemon took in the hand edit too, with the write that re-read the file.
  t.like(res.data, { auto_session_title: false, loop_control: { max_attempts_per_step: 3, compaction_max_attempts: 7 }, raw: { my_own_key: 'kept' } });
});

test('a hand edit survives an OAuth login refresh of the managed provider (token refreshed, model list rewritten)', async (t) => {
  const models = [
    { model: 'svc-large', max_context_size: 262_144, display_name: 'SVC Large' },
    { model: 'svc-small', max_context_size: 131_072 },
  ];
  // 30 s tokens are inside the one-minute refresh window: the refresh below refreshes the token first.
  const h = await startLoginHarness({ fixture: { models, tokenExpiresIn: 30 } });
  t.teardown(() => h.stop());
  t.is((await loginApproved(h)).status, 'authenticated');
  const file = path.join(h.s.home, 'config.toml');
  const added = ['', '# my gateway, not managed', '[providers.mine]', 'type = "chat_compat" # by hand', '', '[models."mine/x"]', 'provider = "mine"', 'model = "x"', 'max_context_size = 1000'];
  const edited = (await readFile(file, 'utf8'))
    .replace('[providers.managed]\n', '# the login wrote this one\n[providers.managed]\nnote = "kept"\n')
    + added.join('\n') + '\n';
  await writeFile(file, edited);

  models.splice(1, 1, { model: 'svc-new', max_context_size: 1000 });
  const res = await h.s.post('/api/v1/providers:refresh_providers');
  t.deepEqual(res.data.changed, [{ provider_id: 'managed', provider_name: 'managed', added: ['managed/svc-new'], removed: ['managed/svc-small'] }]);
  t.true(h.fixture.log.includes('POST /oauth/token refresh_token'), 'the token was refreshed');
  const text = await readFile(file, 'utf8');
  t.true(keptInOrder(text, ['# the login wrote this one', '[providers.managed]', 'note = "kept"', ...added]), text);
  const doc = parse(text) as any;
  t.truthy(doc.models['managed/svc-new']);
  t.is(doc.models['managed/svc-small'], undefined);
  t.is(doc.models['mine/x'].max_context_size, 1000);
  // Everything the refresh did not touch is the hand-edited text, byte for byte.
  const untouched = edited.slice(0, edited.indexOf('[models."managed/svc-large"]'));
  t.true(text.startsWith(untouched), text);
});

test.serial('a hand edit survives a model refresh of a catalog-imported provider', async (t) => {
  const directory = (models: Record<string, number>) => ({
    gw: { id: 'gw', name: 'Gateway', npm: '@ai-sdk/openai-compatible', api: 'https://gw.example/v1', env: ['GW_API_KEY'],
      models: Object.fromEntries(Object.entries(models).map(([id, context]) => [id, { id, name: id, limit: { context, output: 4096 } }])) },
  });
  let doc = directory({ 'gw-a': 32000, 'gw-b': 64000 });
  const dir: Server = createServer((_req, res) => res.end(JSON.stringify(doc)));
  await new Promise<void>((resolve) => dir.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => dir.close(() => resolve())));
  process.env.SVC_CODE_MODEL_DIRECTORY_URL = `http://127.0.0.1:${(dir.address() as AddressInfo).port}/api.json`;
  let s: TestServer;
  try {
    s = await startTestServer();
  } finally {
    delete process.env.SVC_CODE_MODEL_DIRECTORY_URL;
  }
  t.teardown(() => s.stop());
  t.is((await s.post('/api/v1/providers:import_catalog', { catalog_id: 'gw', api_key: 'sk-1' })).code, 0);
  const file = path.join(s.home, 'config.toml');
  const before = await readFile(file, 'utf8');
  const edited = `# top comment\nextra = 1\n\n${before.replace('[models."gw/gw-a"]\n', '[models."gw/gw-a"]\n# my note on gw-a\n')}\n# trailing comment\n[zzz]\nq = "r"\n`;
  await writeFile(file, edited);

  doc = directory({ 'gw-a': 128000, 'gw-c': 1000 });
  const res = await s.post('/api/v1/providers/gw:refresh');
  t.deepEqual(res.data.changed, [{ provider_id: 'gw', provider_name: 'gw', added: ['gw/gw-c'], removed: ['gw/gw-b'] }]);
  const text = await readFile(file, 'utf8');
  t.true(keptInOrder(text, ['# top comment', 'extra = 1', '[models."gw/gw-a"]', '# my note on gw-a', '# trailing comment', '[zzz]', 'q = "r"']), text);
  t.is((parse(text) as any).models['gw/gw-a'].max_context_size, 128000);
  t.true(text.includes('max_context_size = 128000'));
});

test('two daemons on one home patching different keys at the same time keep both', async (t) => {
  t.timeout(240_000, 'two daemons start slowly on a loaded machine');
  const home = await tempHome();
  await writeFile(path.join(home, 'config.toml'), '# shared by two daemons\ntelemetry = true\n');
  const [a, b] = await Promise.all([spawnDaemon(home), spawnDaemon(home)]);
  t.teardown(async () => {
    await Promise.all([a.stop('SIGTERM'), b.stop('SIGTERM')]);
    await rm(home, { recursive: true, force: true });
  });
  const rounds = 12;
  const writes = (base: string, tag: string) => (async () => {
    for (let i = 0; i < rounds; i++) {
      const r = await api(base, 'POST', CONFIG, { experimental: { [`${tag}_${i}`]: true } });
      if (r.code !== 0) throw new Error(JSON.stringify(r));
    }
  })();
  await Promise.all([writes(a.baseUrl, 'a'), writes(b.baseUrl, 'b')]);
  const text = await readFile(path.join(home, 'config.toml'), 'utf8');
  const flags = Object.keys((parse(text) as any).experimental ?? {}).sort();
  const expected = ['a', 'b'].flatMap((tag) => Array.from({ length: rounds }, (_, i) => `${tag}_${i}`)).sort();
  t.deepEqual(flags, expected);
  t.true(text.startsWith('# shared by two daemons\ntelemetry = true\n'));
});

test.serial('a lock held by another live process makes a write wait, then fail with 40001 saying who holds it', async (t) => {
  process.env.SVC_CODE_CONFIG_LOCK_TIMEOUT_MS = '500';
  let s: TestServer;
  try {
    s = await startTestServer();
  } finally {
    delete process.env.SVC_CODE_CONFIG_LOCK_TIMEOUT_MS;
  }
  t.teardown(() => s.stop());
  const lock = path.join(s.home, 'config.toml.lock');
  await writeFile(lock, JSON.stringify({ pid: process.pid, at: Date.now(), token: 'other' }));
  const before = await configText(s);
  const res = await s.post(CONFIG, { telemetry: false });
  t.is(res.code, 40001);
  t.regex(res.msg, new RegExp(`cannot write config\\.toml: .*config\\.toml\\.lock is held by process ${process.pid}`));
  t.is(res.details[0].field, 'config.toml');
  t.is(await configText(s), before);
  await rm(lock);
  t.is((await s.post(CONFIG, { telemetry: false })).code, 0);
});

test('tui.toml is created with the spec\'s defaults on first run; an existing one is never rewritten', async (t) => {
  const s = await startTestServer();
  t.teardown(() => s.stop());
  const file = path.join(s.home, 'tui.toml');
  t.deepEqual(parse(await readFile(file, 'utf8')), {
    theme: 'auto', tui_mode: 'regular', render_latex: true, disable_paste_burst: false, cache_expiry_hint: true, disable_feedback_survey: false,
    editor: { command: '' }, notifications: { enabled: true, notification_condition: 'unfocused' }, upgrade: { auto_install: true },
    status_line: { items: [], command: '' },
  });
  const mine = '# mine\ntheme = "dark"\n';
  await writeFile(file, mine);
  const again = await s.restart();
  t.teardown(() => again.stop());
  t.is(await readFile(file, 'utf8'), mine);
});

test('with the watchers off, an edit of config.toml applies after a restart', async (t) => {
  const s = await startTestServer();
  t.teardown(() => s.stop());
  t.is((await s.get(CONFIG)).data.thinking.effort, undefined);
  await writeFile(path.join(s.home, 'config.toml'), '[thinking]\neffort = "high"\n');
  t.is((await s.get(CONFIG)).data.thinking.effort, undefined, 'not read while running');
  t.deepEqual(s.configWatchers.watched, [], 'nothing is watched');
  const again = await s.restart();
  t.teardown(() => again.stop());
  t.is((await again.get(CONFIG)).data.thinking.effort, 'high');
});
