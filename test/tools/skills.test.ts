import { mkdir, writeFile, utimes } from 'node:fs/promises';
import path from 'node:path';
import test from 'ava';
import { scripts } from '../../fixtures/llm/index.ts';
import { tempDir } from '../helpers/fs.ts';
import { journal, prompt, startEngine, turnEnded, type EngineEnv } from '../helpers/engine.ts';

/** Writes `<root>/<dir>/SKILL.md` with the given frontmatter lines and body. */
async function skill(root: string, dir: string, front: Record<string, string | boolean>, body: string): Promise<string> {
  const d = path.join(root, dir);
  await mkdir(d, { recursive: true });
  const fm = Object.entries(front).map(([k, v]) => `${k}: ${typeof v === 'string' ? JSON.stringify(v) : v}`).join('\n');
  await writeFile(path.join(d, 'SKILL.md'), `---\n${fm}\n---\n${body}\n`);
  return d;
}

const wsRoot = (env: EngineEnv) => {
  return env.s.workspaceOf(env.sid);
};
const projectSkills = (env: EngineEnv) => path.join(wsRoot(env).root, '.svc-code', 'skills');
const userSkills = (env: EngineEnv) => path.join(env.s.home, 'skills');

async function listSession(env: EngineEnv): Promise<any[]> {
  const r = await env.s.get(`/api/v1/sessions/${env.sid}/skills`);
  if (r.code !== 0) throw new Error(JSON.stringify(r));
  return r.data.skills;
}
const byName = (skills: any[], name: string) => skills.find((s) => s.name === name);

/** A user message's text as the fixture LLM received it (chat_compat: string or parts). */
function requestText(env: EngineEnv, i: number): string {
  const messages: any[] = env.llm.requests[i]!.body.messages;
  return messages.filter((m) => m.role === 'user').map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content))).join('\n');
}

async function envWithExtra(t: any, extraToml = '') {
  const extra = await tempDir('svc-code-extra-');
  const env = await startEngine(t, { extraToml: `extra_skill_dirs = [${JSON.stringify(extra)}]\n${extraToml}` });
  return { env, extra };
}

test('discovery merges project, user, extra and builtin with precedence project > user > extra > builtin', async (t) => {
  const { env, extra } = await envWithExtra(t);
  await skill(projectSkills(env), 'dup', { name: 'dup', description: 'from project' }, 'P');
  await skill(userSkills(env), 'dup', { name: 'dup', description: 'from user' }, 'U');
  await skill(extra, 'dup', { name: 'dup', description: 'from extra' }, 'X');
  await skill(userSkills(env), 'u-only', { name: 'u-only', description: 'user one' }, 'U');
  await skill(extra, 'u-only', { name: 'u-only', description: 'extra one' }, 'X');
  await skill(extra, 'x-dir', { name: 'x-only', description: 'extra only', type: 'model', 'disable-model-invocation': true }, 'X');
  await skill(extra, 'svc-code-api', { name: 'svc-code-api', description: 'shadowing the builtin' }, 'X');
  const skills = await listSession(env);
  t.like(byName(skills, 'dup'), { source: 'project', description: 'from project', path: path.join(projectSkills(env), 'dup') });
  t.like(byName(skills, 'u-only'), { source: 'user', description: 'user one' });
  t.like(byName(skills, 'x-only'), { source: 'extra', type: 'model', disable_model_invocation: true, path: path.join(extra, 'x-dir') });
  t.like(byName(skills, 'svc-code-api'), { source: 'extra' });
  t.is(skills.filter((s) => s.name === 'dup').length, 1);
  t.false('content' in byName(skills, 'dup'));
  const ws = await env.s.get(`/api/v1/workspaces/${wsRoot(env).id}/skills`);
  t.is(ws.code, 0);
  t.deepEqual(ws.data.skills, skills);
});

test('builtin skill is listed by default; a SKILL.md edit shows without restart; underscore flag accepted', async (t) => {
  const env = await startEngine(t);
  t.like(byName(await listSession(env), 'svc-code-api'), { source: 'builtin' });
  const dir = await skill(projectSkills(env), 'a', { name: 'a', description: 'v1' }, 'A');
  t.is(byName(await listSession(env), 'a').description, 'v1');
  await writeFile(path.join(dir, 'SKILL.md'), '---\nname: a\ndescription: second version\ndisable_model_invocation: true\n---\nA2\n');
  const later = new Date(Date.now() + 5000);
  await utimes(path.join(dir, 'SKILL.md'), later, later);
  t.like(byName(await listSession(env), 'a'), { description: 'second version', disable_model_invocation: true });
});

test('builtin_product_skills = false hides the builtin; merge_all_available_skills = false keeps only the first project brand dir', async (t) => {
  const env = await startEngine(t, { extraToml: 'builtin_product_skills = false\nmerge_all_available_skills = false' });
  await skill(projectSkills(env), 'mine', { name: 'mine', description: 'm' }, 'M');
  await skill(path.join(wsRoot(env).root, '.claude', 'skills'), 'theirs', { name: 'theirs', description: 't' }, 'T');
  const names = (await listSession(env)).map((s) => s.name);
  t.deepEqual(names, ['mine']);
});

test('merge_all_available_skills (default) merges every project brand dir', async (t) => {
  const env = await startEngine(t);
  await skill(projectSkills(env), 'mine', { name: 'mine', description: 'm' }, 'M');
  await skill(path.join(wsRoot(env).root, '.claude', 'skills'), 'theirs', { name: 'theirs', description: 't' }, 'T');
  const skills = await listSession(env);
  t.like(byName(skills, 'theirs'), { source: 'project' });
  t.truthy(byName(skills, 'mine'));
});

test('GET skills: unknown session 40401, unknown workspace 40410', async (t) => {
  const env = await startEngine(t);
  t.is((await env.s.get('/api/v1/sessions/nope/skills')).code, 40401);
  t.is((await env.s.get('/api/v1/workspaces/nope/skills')).code, 40410);
});

test(':activate starts a turn whose request carries the skill content and args, and journals skill.activated', async (t) => {
  const env = await startEngine(t);
  await skill(projectSkills(env), 'deploy', { name: 'deploy', description: 'Deploys' }, 'DEPLOY-INSTRUCTIONS-42');
  env.llm.setScript(scripts.helloText);
  const r = await env.s.post(`/api/v1/sessions/${env.sid}/skills/deploy:activate`, { args: 'to staging' });
  t.deepEqual(r.data, { activated: true, skill_name: 'deploy' });
  await turnEnded(env);
  const text = requestText(env, 0);
  t.true(text.includes('DEPLOY-INSTRUCTIONS-42'));
  t.true(text.includes('to staging'));
  const ev = (await journal(env)).find((e) => e.type === 'skill.activated');
  t.like(ev?.payload, { agent_id: 'main', skill_name: 'deploy', source: 'project', args: 'to staging' });
  t.regex(ev!.payload.prompt_id, /^prompt_/);
});

test(':activate errors: 40415 unknown, 40912 model-only, 40401 session, 40407 missing attachment, 40001 bad body', async (t) => {
  const env = await startEngine(t);
  await skill(projectSkills(env), 'ref', { name: 'ref', description: 'r', type: 'model' }, 'R');
  await skill(projectSkills(env), 'ok', { name: 'ok', description: 'o' }, 'O');
  const unknown = await env.s.post(`/api/v1/sessions/${env.sid}/skills/nope:activate`, {});
  t.is(unknown.code, 40415);
  t.is(unknown.details.skill_name, 'nope');
  t.is((await env.s.post(`/api/v1/sessions/${env.sid}/skills/ref:activate`, {})).code, 40912);
  t.is((await env.s.post('/api/v1/sessions/nope/skills/ok:activate', {})).code, 40401);
  const missing = await env.s.post(`/api/v1/sessions/${env.sid}/skills/ok:activate`, { attachments: [{ type: 'image', source: { kind: 'file', file_id: 'file_missing' } }] });
  t.is(missing.code, 40407);
  t.is((await env.s.post(`/api/v1/sessions/${env.sid}/skills/ok:activate`, { attachments: [{ type: 'text', text: 'x' }] })).code, 40001);
  t.is((await env.s.post(`/api/v1/sessions/${env.sid}/skills/ok:activate`, { args: 3 })).code, 40001);
  t.is(env.llm.requests.length, 0);
});

test('POST /prompts skills: 40415, 40912, 40001 with prompt_id, and a bundled activation', async (t) => {
  const env = await startEngine(t);
  await skill(projectSkills(env), 'ref', { name: 'ref', description: 'r', type: 'model' }, 'R');
  await skill(projectSkills(env), 'lint', { name: 'lint', description: 'l' }, 'LINT-BODY');
  await skill(userSkills(env), 'fmt', { name: 'fmt', description: 'f' }, 'FMT-BODY');
  const unknown = await prompt(env, { content: [{ type: 'text', text: 'go' }], skills: [{ name: 'ghost' }] });
  t.is(unknown.code, 40415);
  t.is(unknown.details.skill_name, 'ghost');
  t.is((await prompt(env, { content: [{ type: 'text', text: 'go' }], skills: [{ name: 'ref' }] })).code, 40912);
  t.is((await prompt(env, { content: [{ type: 'text', text: 'go' }], skills: [{ name: 'lint' }], prompt_id: 'p1' })).code, 40001);
  t.is((await prompt(env, { content: [{ type: 'text', text: 'go' }], skills: [] })).code, 40001);
  env.llm.setScript(scripts.helloText);
  const ok = await prompt(env, { content: [{ type: 'text', text: 'PROMPT-TEXT' }], skills: [{ name: 'lint', args: 'src/' }, { name: 'fmt' }] });
  t.is(ok.code, 0);
  await turnEnded(env);
  t.is(env.llm.requests.length, 1);
  const text = requestText(env, 0);
  const order = ['LINT-BODY', 'src/', 'FMT-BODY', 'PROMPT-TEXT'].map((s) => text.indexOf(s));
  t.true(order.every((i) => i >= 0));
  t.deepEqual([...order].sort((a, b) => a - b), order);
  const evs = (await journal(env)).filter((e) => e.type === 'skill.activated').map((e) => e.payload);
  t.deepEqual(evs.map((p) => [p.skill_name, p.source, p.args, p.prompt_id]), [['lint', 'project', 'src/', ok.data.prompt_id], ['fmt', 'user', undefined, ok.data.prompt_id]]);
});

test('Skill tool returns the content with its base directory and journals skill.activated; unknown or hidden skill is an error', async (t) => {
  const env = await startEngine(t);
  const dir = await skill(projectSkills(env), 'review', { name: 'review', description: 'Reviews code' }, 'REVIEW-STEPS');
  await skill(projectSkills(env), 'hidden', { name: 'hidden', description: 'h', 'disable-model-invocation': true }, 'H');
  env.llm.setScript({
    events: [
      { tool_call: { id: 'c0', name: 'Skill', args: { skill: 'review', args: 'PR 7' } } },
      { tool_call: { id: 'c1', name: 'Skill', args: { skill: 'ghost' } } },
      { tool_call: { id: 'c2', name: 'Skill', args: { skill: 'hidden' } } },
    ],
  }, scripts.helloText);
  t.is((await prompt(env, 'go')).code, 0);
  await turnEnded(env, 1, 30_000);
  const events = await journal(env);
  const result = (id: string) => events.find((e) => e.type === 'tool.result' && e.payload.tool_call_id === id)!.payload;
  const ok = result('c0');
  t.false(ok.is_error);
  t.true(ok.content.includes('REVIEW-STEPS'));
  t.true(ok.content.includes(dir));
  t.true(ok.content.includes('PR 7'));
  const ghost = result('c1');
  t.true(ghost.is_error);
  t.regex(ghost.content, /Unknown skill: ghost/);
  t.regex(ghost.content, /- review: Reviews code/);
  t.false(ghost.content.includes('hidden'));
  t.true(result('c2').is_error);
  const act = events.filter((e) => e.type === 'skill.activated');
  t.deepEqual(act.map((e) => e.payload), [{ agent_id: 'main', skill_name: 'review', source: 'project', args: 'PR 7', tool_call_id: 'c0' }]);
});
