import test from 'ava';
import { access, mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import pino from 'pino';
import { parse } from 'smol-toml';
import { serverFor, startTestServer, tempHome, type TestServer } from '../helpers/server.ts';
import { committedOf } from '../helpers/journal.ts';
import { until } from '../helpers/wait.ts';

const CONFIG = '/api/v1/config';

/** Starts a server on a home whose config.toml holds `toml`. */
async function withConfig(toml: string): Promise<TestServer> {
  const home = await tempHome();
  await writeFile(path.join(home, 'config.toml'), toml);
  return startTestServer({ home });
}

/** Sets env vars for the duration of `fn` (callers are test.serial: env is process-wide). */
async function withEnv<T>(vars: Record<string, string>, fn: () => Promise<T>): Promise<T> {
  const saved = Object.fromEntries(Object.keys(vars).map((k) => [k, process.env[k]]));
  Object.assign(process.env, vars);
  try {
    return await fn();
  } finally {
    for (const [k, val] of Object.entries(saved)) {
      if (val === undefined) delete process.env[k];
      else process.env[k] = val;
    }
  }
}

/** Every `event.config.changed` the journal commits from now on. */
const configEvents = (s: TestServer) => committedOf(s, 'event.config.changed');

/** Resolves once the config file watcher's next reload (its answer to a change of config.toml) has run. */
function nextReload(s: TestServer): Promise<void> {
  const config = s.config;
  const reload = config.reload.bind(config);
  return new Promise((resolve) => {
    config.reload = async () => {
      config.reload = reload;
      await reload();
      resolve();
    };
  });
}

const readToml = async (s: TestServer) => parse(await readFile(path.join(s.home, 'config.toml'), 'utf8')) as Record<string, any>;

const SECRET_FILE = `
default_model = "fast"
my_unmodeled = "keep-me"

[providers.acme]
type = "chat_compat"
base_url = "https://llm.example/v1"
api_key = "sk-SECRET-provider-111"
custom_headers = { "X-Org" = "hdr-SECRET-222" }
oauth = { storage = "file", key = "oauth-SECRET-333" }

[providers.viaenv]
type = "messages_api"
env = { ANTHROPIC_API_KEY = "sk-SECRET-env-444" }

[providers.nokey]
type = "genai"

[models.fast]
provider = "acme"
model = "acme-fast"
max_context_size = 128000

[services.pymodel_search]
base_url = "https://search.example"
api_key = "sk-SECRET-search-555"

[loop_control]
max_attempts_per_step = 3
reserved_context_size = 1000
future_knob = 42

[background]
kill_grace_period_ms = 1234

[unknown_table]
a = 1
`;

test('first run creates config.toml; GET reports every field with Part B defaults', async (t) => {
  const s = await serverFor(t);
  await t.notThrowsAsync(access(path.join(s.home, 'config.toml')));
  const res = await s.get(CONFIG);
  t.is(res.code, 0);
  const c = res.data;
  for (const k of ['providers', 'default_provider', 'default_model', 'models', 'thinking', 'plan_mode', 'yolo', 'default_permission_mode', 'default_plan_mode',
    'permission', 'hooks', 'services', 'merge_all_available_skills', 'extra_skill_dirs', 'loop_control', 'background', 'subagent', 'secondary_model',
    'experimental', 'telemetry', 'auto_session_title', 'raw']) t.true(k in c, k);
  t.is(c.default_permission_mode, 'manual');
  t.false(c.yolo);
  t.deepEqual(c.thinking, { enabled: true, keep: 'all' });
  t.deepEqual(c.loop_control, { max_attempts_per_step: 10, compaction_max_attempts: 5 });
  t.is(c.background.bash_task_timeout_s, 600);
  t.is(c.background.print_background_mode, 'steer');
  t.deepEqual(c.subagent, { timeout_ms: 7_200_000 });
  t.deepEqual(c.permission, { rules: [], dangerous_command_guard: true });
  t.true(c.telemetry);
  t.true(c.merge_all_available_skills);
  t.deepEqual(c.read, { default_max_chars: 100_000, max_chars: 500_000 });
  t.is(c.raw.default_permission_mode, 'manual');
});

test('GET redacts every secret: providers show has_api_key only, raw keeps keys but not values', async (t) => {
  const s = await withConfig(SECRET_FILE);
  t.teardown(() => s.stop());
  const r = await s.req('GET', CONFIG);
  const text = JSON.stringify(r.body);
  t.false(/SECRET/.test(text), 'no secret text anywhere in the response');
  const c = r.body.data;
  t.deepEqual(c.providers.acme, { type: 'chat_compat', base_url: 'https://llm.example/v1', has_api_key: true });
  t.deepEqual(c.providers.viaenv, { type: 'messages_api', has_api_key: true });
  t.deepEqual(c.providers.nokey, { type: 'genai', has_api_key: false });
  t.is(c.default_provider, 'acme');
  t.is(c.default_model, 'fast');
  t.is(c.raw.providers.acme.api_key, '[redacted]');
  t.is(c.raw.providers.acme.custom_headers['X-Org'], '[redacted]');
  t.is(c.raw.providers.acme.oauth.storage, 'file');
  t.is(c.raw.my_unmodeled, 'keep-me');
  t.is(c.services.pymodel_search.has_api_key, true);
  t.is(c.services.pymodel_search.base_url, 'https://search.example');
});

test('POST deep-merges one domain, leaves the others and unknown keys untouched', async (t) => {
  const s = await withConfig(SECRET_FILE);
  t.teardown(() => s.stop());
  const res = await s.post(CONFIG, { loop_control: { compaction_max_attempts: 7 }, experimental: { fancy: true } });
  t.is(res.code, 0);
  t.is(res.data.loop_control.max_attempts_per_step, 3);
  t.is(res.data.loop_control.reserved_context_size, 1000);
  t.is(res.data.loop_control.compaction_max_attempts, 7);
  t.is(res.data.background.kill_grace_period_ms, 1234);
  t.deepEqual(res.data.experimental, { fancy: true });
  t.false(/SECRET/.test(JSON.stringify(res)));
  t.deepEqual((await s.get(CONFIG)).data, res.data);

  const file = await readToml(s);
  t.is(file.my_unmodeled, 'keep-me');
  t.deepEqual(file.unknown_table, { a: 1 });
  t.is(file.loop_control.future_knob, 42);
  t.is(file.loop_control.compaction_max_attempts, 7);
  t.is(file.providers.acme.api_key, 'sk-SECRET-provider-111');
  t.is(file.providers.acme.custom_headers['X-Org'], 'hdr-SECRET-222');
});

test('POST stores a provider api_key without echoing it; an echoed "[redacted]" keeps the stored key; null deletes', async (t) => {
  const s = await serverFor(t);
  const res = await s.post(CONFIG, { providers: { local: { type: 'chat_compat', api_key: 'sk-NEW-999', base_url: 'http://127.0.0.1:1' } } });
  t.is(res.code, 0);
  t.false(JSON.stringify(res).includes('sk-NEW-999'));
  t.true(res.data.providers.local.has_api_key);
  t.is((await readToml(s)).providers.local.api_key, 'sk-NEW-999');

  const echo = await s.post(CONFIG, { providers: { local: { ...res.data.providers.local, api_key: '[redacted]' } } });
  t.is(echo.code, 0);
  const file = await readToml(s);
  t.is(file.providers.local.api_key, 'sk-NEW-999');
  t.false('has_api_key' in file.providers.local);

  const del = await s.post(CONFIG, { providers: { local: { base_url: null } } });
  t.false('base_url' in del.data.providers.local);
});

test('yolo:true maps to default_permission_mode yolo; yolo:false is ignored; plan_mode sets default_plan_mode', async (t) => {
  const s = await serverFor(t);
  const a = await s.post(CONFIG, { yolo: true, plan_mode: true });
  t.is(a.data.default_permission_mode, 'yolo');
  t.true(a.data.yolo);
  t.true(a.data.default_plan_mode);
  const b = await s.post(CONFIG, { yolo: false });
  t.is(b.data.default_permission_mode, 'yolo');
  const c = await s.post(CONFIG, { default_permission_mode: 'auto' });
  t.is(c.data.default_permission_mode, 'auto');
  t.false(c.data.yolo);
  t.is((await readToml(s)).default_permission_mode, 'auto');
  t.false('yolo' in (await readToml(s)));
});

test('invalid values answer 40001 with details and leave the file alone', async (t) => {
  const s = await withConfig(SECRET_FILE);
  t.teardown(() => s.stop());
  const before = await readFile(path.join(s.home, 'config.toml'), 'utf8');
  const cases: [unknown, string][] = [
    [{ default_permission_mode: 'nope' }, 'default_permission_mode'],
    [{ loop_control: { max_attempts_per_step: 0 } }, 'loop_control.max_attempts_per_step'],
    [{ thinking: { effort: 'huge' } }, 'thinking.effort'],
    [{ raw: { a: 1 } }, 'raw'],
    [{ default_model: 'missing-alias' }, 'default_model'],
    [{ models: { x: { model: 'm', max_context_size: 10 } } }, 'models.x.provider'],
    [{ providers: { fresh: { base_url: 'http://x' } } }, 'providers.fresh.type'],
    [{ secondary_model: { models: { fast: '' } } }, 'secondary_model.default_model'],
    [{ models: { fast: { overrides: { provider: 'acme' } } } }, 'models.fast.overrides.provider'],
  ];
  for (const [body, field] of cases) {
    const res = await s.post(CONFIG, body);
    t.is(res.code, 40001, JSON.stringify(body));
    t.true(Array.isArray(res.details) && res.details.some((d: any) => d.field === field), `${field}: ${JSON.stringify(res.details)}`);
    t.truthy(res.msg);
  }
  t.is(await readFile(path.join(s.home, 'config.toml'), 'utf8'), before);
});

test('a failed write answers 40001 with the underlying message', async (t) => {
  const home = await tempHome();
  // A directory where config.toml should be: unreadable at start, unwritable on POST.
  await mkdir(path.join(home, 'config.toml'));
  const s = await startTestServer({ home });
  t.teardown(() => s.stop());
  t.is((await s.get(CONFIG)).code, 0);
  const res = await s.post(CONFIG, { telemetry: false });
  t.is(res.code, 40001);
  t.regex(res.msg, /cannot write config\.toml/);
  t.is(res.details[0].field, 'config.toml');
  t.true((await s.get(CONFIG)).data.telemetry, 'nothing applied after a failed write');
});

test('a malformed config.toml does not crash the daemon: defaults, a warning; a write is refused with the file and line, the file left alone', async (t) => {
  const broken = 'default_model = "x"\napi_key = "sk-SECRET-broken"\n[oops\n';
  const s = await withConfig(broken);
  t.teardown(() => s.stop());
  const res = await s.get(CONFIG);
  t.is(res.code, 0);
  t.is(res.data.default_permission_mode, 'manual');
  t.deepEqual(res.data.raw, {});
  const warnings = s.config.warnings();
  t.true(warnings.some((w) => /malformed/.test(w)));
  t.false(warnings.some((w) => w.includes('SECRET')), 'the parse error excerpt is not quoted');
  t.is(await readFile(path.join(s.home, 'config.toml'), 'utf8'), broken);

  const refused = await s.post(CONFIG, { default_plan_mode: true });
  t.is(refused.code, 40001);
  const file = path.join(s.home, 'config.toml');
  t.like(refused.details[0], { field: 'config.toml', file, line: 3 });
  t.true(refused.msg.includes(file) && /line 3/.test(refused.msg), refused.msg);
  t.false(JSON.stringify(refused).includes('SECRET'));
  t.is(await readFile(file, 'utf8'), broken, 'never overwritten');
  t.false((await s.get(CONFIG)).data.default_plan_mode, 'nothing applied');

  // Fixed by hand: the next write goes through and keeps the fix.
  await writeFile(file, 'default_model = "x" # mine\n');
  t.is((await s.post(CONFIG, { default_plan_mode: true })).code, 0);
  t.is(await readFile(file, 'utf8'), 'default_model = "x" # mine\ndefault_plan_mode = true\n');
  t.false(s.config.warnings().some((w) => /malformed/.test(w)));
});

test('deprecated keys are mapped or ignored with warnings', async (t) => {
  const s = await withConfig('default_thinking = false\n[loop_control]\nmax_retries_per_step = 5\nmax_steps_per_run = 9\n');
  t.teardown(() => s.stop());
  const c = (await s.get(CONFIG)).data;
  t.false(c.thinking.enabled);
  t.is(c.loop_control.max_attempts_per_step, 10);
  t.false('max_steps_per_turn' in c.loop_control);
  const w = s.config.warnings().join('\n');
  t.regex(w, /default_thinking is deprecated/);
  t.regex(w, /max_retries_per_step was renamed/);
  t.regex(w, /max_steps_per_run was renamed/);

  const s2 = await withConfig('[thinking]\nmode = "off"\n');
  t.teardown(() => s2.stop());
  t.false((await s2.get(CONFIG)).data.thinking.enabled);
  t.regex(s2.config.warnings().join('\n'), /thinking\.mode is deprecated/);
});

test.serial('env overrides are read at start and never written back', async (t) => {
  const s = await withEnv({
    SVC_LOOP_MAX_ATTEMPTS_PER_STEP: '4',
    SVC_CODE_BACKGROUND_MAX_RUNNING_TASKS: '3',
    SVC_CODE_IDENTITY_NAME: 'My Agent!',
    SVC_TOKEN_COUNTING_STRATEGY: 'measured',
    SVC_CODE_DANGEROUS_COMMAND_GUARD: 'false',
    SVC_WEB_SEARCH_API_KEY: 'sk-SECRET-envsearch',
    SVC_MCP_TOOL_TIMEOUT_MS: 'soon',
  }, () => withConfig(SECRET_FILE));
  t.teardown(() => s.stop());
  const c = (await s.get(CONFIG)).data;
  t.is(c.loop_control.max_attempts_per_step, 4);
  t.is(c.background.max_running_tasks, 3);
  t.deepEqual(c.identity, { name: 'My Agent!', slug: 'my-agent' });
  t.is(c.token_counting.strategy, 'measured');
  t.false(c.permission.dangerous_command_guard);
  t.is(c.mcp.tool_timeout_ms, 60_000);
  t.regex(s.config.warnings().join('\n'), /SVC_MCP_TOOL_TIMEOUT_MS/);
  t.is(c.services.pymodel_search.base_url, 'https://search.example', 'env key alone keeps the configured endpoint');
  t.is(s.config.current().services.pymodel_search?.api_key, 'sk-SECRET-envsearch');
  t.false(JSON.stringify(c).includes('sk-SECRET-envsearch'));

  await s.post(CONFIG, { telemetry: false });
  const file = await readToml(s);
  t.is(file.loop_control.max_attempts_per_step, 3);
  t.false('identity' in file);
  t.false('token_counting' in file);
  t.is(file.services.pymodel_search.api_key, 'sk-SECRET-search-555');
});

test.serial('deprecated SVC_LOOP_MAX_RETRIES_PER_STEP is honored with a warning when the new variable is unset', async (t) => {
  const s = await withEnv({ SVC_LOOP_MAX_RETRIES_PER_STEP: '6' }, () => startTestServer());
  t.teardown(() => s.stop());
  t.is((await s.get(CONFIG)).data.loop_control.max_attempts_per_step, 6);
  t.regex(s.config.warnings().join('\n'), /SVC_LOOP_MAX_RETRIES_PER_STEP is deprecated/);
});

test.serial('two quick POSTs produce one event.config.changed carrying both fields and the full config', async (t) => {
  const s = await withEnv({ SVC_CODE_CONFIG_EVENT_WINDOW_MS: '800' }, () => startTestServer());
  t.teardown(() => s.stop());
  const events = configEvents(s);
  await s.post(CONFIG, { default_plan_mode: true });
  await s.post(CONFIG, { loop_control: { max_steps_per_turn: 50 } });
  await until(() => events.length > 0);
  const e = events[0];
  t.is(e.stream, '__global__');
  const payload = e.payload as { changedFields: string[]; config: any };
  t.deepEqual([...payload.changedFields].sort(), ['defaultPlanMode', 'loopControl', 'planMode']);
  t.is(payload.config.loop_control.max_steps_per_turn, 50);
  t.true(payload.config.default_plan_mode);
  t.deepEqual(payload.config, (await s.get(CONFIG)).data);
  // Stopping flushes a change still waiting in its window: none was left for a second event.
  await s.stop();
  t.is(events.length, 1);
});

test.serial('with [watch] enabled an external edit is picked up once; our own writes do not fire twice', async (t) => {
  const s = await withEnv({ SVC_CODE_CONFIG_EVENT_WINDOW_MS: '300' }, () => withConfig('[watch]\nenabled = true\n'));
  t.teardown(() => s.stop());
  const events = configEvents(s);
  await writeFile(path.join(s.home, 'config.toml'), '[watch]\nenabled = true\n\n[thinking]\neffort = "high"\n');
  await until(() => events.length > 0);
  t.deepEqual((events[0].payload as any).changedFields, ['thinking']);
  t.is((await s.get(CONFIG)).data.thinking.effort, 'high');

  const reloaded = nextReload(s);
  await s.post(CONFIG, { auto_session_title: false });
  await until(() => events.length > 1);
  await reloaded; // the watcher saw our own write and re-read the file
  t.deepEqual((events[1].payload as any).changedFields, ['autoSessionTitle']);
  t.is((await readToml(s)).thinking.effort, 'high', 'the POST kept the externally edited key');
  // Stopping flushes what the reload announced, if anything.
  await s.stop();
  t.is(events.length, 2);
});

test('database.base = false is accepted with a warning that it has no effect (docs/journal.md says why)', async (t) => {
  const s = await withConfig('[database]\nbase = false\n');
  t.teardown(() => s.stop());
  t.regex(s.config.warnings().join('\n'), /database\.base = false has no effect/);
  t.is((await s.get('/api/v1/sessions')).code, 0, 'sessions are listed as ever');
});

test('MCP rules and tools entries written against raw server names warn at load (log and warnings) with the name to write', async (t) => {
  const home = await tempHome();
  await writeFile(path.join(home, 'config.toml'), [
    '[[permission.rules]]', 'pattern = "mcp__docs.site__*"', 'decision = "allow"',
    '[[permission.rules]]', 'pattern = "mcp__github__create_issue"', 'decision = "ask"',
    '[tools]', 'disabled = ["mcp__my server__get.page"]', '',
  ].join('\n'));
  const lines: string[] = [];
  const log = pino({ level: 'warn' }, { write: (line: string) => void lines.push(line) });
  const s = await startTestServer({ home, log });
  t.teardown(() => s.stop());
  const w = s.config.warnings();
  t.true(w.some((x) => x.includes('permission.rules[0] pattern "mcp__docs.site__*" never matches') && x.includes('write "mcp__docs_site__*"')), w.join('\n'));
  t.true(w.some((x) => x.includes('tools.disabled entry "mcp__my server__get.page"') && x.includes('write "mcp__my_server__get_page"')), w.join('\n'));
  t.false(w.some((x) => x.includes('mcp__github__create_issue')), 'a rule on clean names is fine');
  t.true(lines.some((l) => l.includes('mcp__docs.site__*') && l.includes('mcp__docs_site__*')), 'logged at load');
});
