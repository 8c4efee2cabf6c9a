import test from 'ava';
import { scripts } from '../../fixtures/llm/index.ts';
import { journal, prompt, startEngine, turnEnded } from '../helpers/engine.ts';
import { writeFiles } from '../helpers/fs.ts';
import { until } from '../helpers/wait.ts';

// The system prompt tells the model which skills it may load (issue 26): name and one line each, bounded,
// without the skills marked disable_model_invocation, added per turn and never recorded.

const systemOf = (body: any): string => body.messages.find((m: any) => m.role === 'system')?.content ?? '';
const skillFile = (name: string, description: string, extra = '') => `---\nname: ${name}\ndescription: ${description}\n${extra}---\nDo ${name}.\n`;
const NO_BUILTIN = 'builtin_product_skills = false';
/** Names listed in the skills section (the lines after its heading). */
const listed = (sys: string): string[] => {
  const at = sys.indexOf('Skills you can load');
  return at < 0 ? [] : [...sys.slice(at).matchAll(/^- ([\w-]+)(?::|$)/gm)].map((m) => m[1]!);
};

test('the skills section lists model-visible skills by name and one line, leaves out disable_model_invocation ones', async (t) => {
  const env = await startEngine(t, { extraToml: NO_BUILTIN });
  await writeFiles(env.s.home, {
    'skills/deploy/SKILL.md': skillFile('deploy', '"Ships the app\\nsecond line stays out"'),
    'skills/secret/SKILL.md': skillFile('secret', 'User-only', 'disable-model-invocation: true\n'),
    'skills/lint/SKILL.md': skillFile('lint', 'Runs the linters'),
  });
  env.llm.setScript(scripts.helloText);
  await prompt(env, 'hi');
  await turnEnded(env);
  const sys = systemOf(env.llm.requests[0]!.body);
  t.regex(sys, /Skills you can load with the Skill tool/);
  t.deepEqual(listed(sys), ['deploy', 'lint']);
  t.true(sys.includes('\n- deploy: Ships the app\n'));
  t.false(sys.includes('second line stays out'));
  t.false(sys.includes('secret'));
  t.true(sys.includes('\n- lint: Runs the linters'));
});

test('the skills section is bounded: 40 skills, then "and N more"; each line cut', async (t) => {
  const env = await startEngine(t, { extraToml: NO_BUILTIN });
  const files: Record<string, string> = {};
  for (let i = 0; i < 45; i++) {
    const name = `s${String(i).padStart(2, '0')}`;
    files[`skills/${name}/SKILL.md`] = skillFile(name, i === 0 ? 'long '.repeat(100) : `skill ${i}`);
  }
  await writeFiles(env.s.home, files);
  env.llm.setScript(scripts.helloText);
  await prompt(env, 'hi');
  await turnEnded(env);
  const sys = systemOf(env.llm.requests[0]!.body);
  t.is(listed(sys).length, 40);
  t.is(listed(sys).at(-1), 's39');
  t.regex(sys, /\n- and 5 more \(call Skill with an unknown name to list them all\)/);
  const first = sys.split('\n').find((l) => l.startsWith('- s00:'))!;
  t.true(first.length <= 200 && first.endsWith('…'), first);
});

test('no skills section when the Skill tool is not offered (disabled_tools, or a profile without it)', async (t) => {
  const env = await startEngine(t, { extraToml: NO_BUILTIN });
  await writeFiles(env.s.home, {
    'skills/deploy/SKILL.md': skillFile('deploy', 'Ships'),
    'agents/reader.md': '---\nname: reader\ntools: Read\n---\nRead only.\n',
  });
  env.llm.setScript(scripts.helloText, scripts.helloText, scripts.helloText);
  await prompt(env, { content: [{ type: 'text', text: 'a' }], disabled_tools: ['Skill'] });
  await turnEnded(env, 1);
  await prompt(env, { content: [{ type: 'text', text: 'b' }], disabled_tools: [], profile: 'reader' });
  await turnEnded(env, 2);
  await prompt(env, { content: [{ type: 'text', text: 'c' }], profile: 'default' });
  await turnEnded(env, 3);
  const [a, b, c] = env.llm.requests.map((r) => systemOf(r.body));
  t.false(a!.includes('deploy'));
  t.false(b!.includes('deploy'));
  t.true(c!.includes('\n- deploy: Ships'));
});

test('skills added later appear in the next turn and after a restart; the recorded system prompt is kept as it was', async (t) => {
  const env = await startEngine(t, { extraToml: NO_BUILTIN });
  await writeFiles(env.s.home, { 'skills/one/SKILL.md': skillFile('one', 'First') });
  env.llm.setScript(scripts.helloText, scripts.helloText);
  await prompt(env, 'a');
  await turnEnded(env, 1);
  await writeFiles(env.s.home, { 'skills/two/SKILL.md': skillFile('two', 'Second') });
  await prompt(env, 'b');
  await turnEnded(env, 2);
  t.deepEqual(listed(systemOf(env.llm.requests[0]!.body)), ['one']);
  t.deepEqual(listed(systemOf(env.llm.requests[1]!.body)), ['one', 'two']);
  const recorded: string = (await journal(env)).find((e) => e.type === 'system_prompt.recorded')!.payload.text;
  t.false(recorded.includes('Skills you can load'));

  const s2 = await env.s.restart();
  t.teardown(() => s2.stop());
  await writeFiles(s2.home, { 'skills/three/SKILL.md': skillFile('three', 'Third') });
  env.llm.setScript(scripts.helloText);
  await s2.post(`/api/v1/sessions/${env.sid}/prompts`, { content: [{ type: 'text', text: 'c' }] });
  await until(() => env.llm.requests.length === 3);
  const resumed = systemOf(env.llm.requests[2]!.body);
  t.true(resumed.startsWith(recorded));
  t.deepEqual(listed(resumed), ['one', 'three', 'two']);
  const again = (await s2.eventsOf(env.sid)).filter((e) => e.type === 'system_prompt.recorded');
  t.is(again.length, 1);
});
