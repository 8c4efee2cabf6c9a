import test from 'ava';
import { scripts } from '../../fixtures/llm/index.ts';
import { until } from '../helpers/wait.ts';
import { sessionJourney } from './helpers.ts';

// The chat view and the composer in the browser (docs/web-ui.md): the pickers, @ mentions, attachments,
// skills, tool blocks with diffs, the per-turn file changes, the complete approval and question cards,
// the queue (steer, remove), older turns paged in on scroll.

/** A second model beside the fixture's default one (the model picker's choice). */
const TWO_MODELS = `default_permission_mode = "manual"

[models."fx/second"]
provider = "fx"
model = "fixture-second"
max_context_size = 100000
`;

const PNG_1PX = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');

const lastBody = (llm: { requests: { body: any }[] }) => llm.requests.at(-1)!.body;

test('pick a model, thinking and permission mode; an @ mention; an attachment; a skill', async (t) => {
  const { page, llm, shot, pageErrors, rest: api, sid } = await sessionJourney(t, TWO_MODELS);

  // The model picker lists both models; the choice is the session's model for the next turn.
  await shot('opened');
  const model = page.getByLabel('Model', { exact: true });
  await model.locator('option', { hasText: 'fx/second' }).waitFor({ state: 'attached' });
  await model.selectOption('fx/second');
  await until(async () => (await api('GET', `/api/v1/sessions/${sid}/status`)).model === 'fx/second', 30_000, 'the model set on the session');
  await page.getByLabel('Thinking').selectOption('high');
  await until(async () => (await api('GET', `/api/v1/sessions/${sid}/status`)).thinking_level === 'high', 30_000, 'thinking set');
  await shot('pickers');

  // @ mention: typing "@REA" offers README.md from fs:search; Enter puts its path in the prompt.
  llm.setScript(scripts.helloText);
  const prompt = page.getByLabel('Prompt');
  await prompt.pressSequentially('summarise @REA');
  const files = page.getByRole('listbox', { name: 'Files' });
  await files.getByRole('option', { name: /README\.md/ }).waitFor();
  await shot('mention');
  await prompt.press('Enter');
  t.is(await prompt.inputValue(), 'summarise @README.md ');
  await prompt.press('Enter');
  await page.locator('.bubble.assistant', { hasText: 'Hello, world' }).waitFor();
  t.is(lastBody(llm).model, 'fixture-second', 'the turn ran on the picked model');
  t.true(JSON.stringify(lastBody(llm).messages).includes('summarise @README.md'));

  // Permission mode yolo: a Bash call runs without an approval card.
  await page.getByLabel('Permission mode').selectOption('yolo');
  await until(async () => (await api('GET', `/api/v1/sessions/${sid}/status`)).permission === 'yolo', 30_000, 'yolo set');
  llm.setScript({ events: [{ tool_call: { id: 'b1', name: 'Bash', args: { command: 'echo no-approval-needed' } } }] }, scripts.helloText);
  await prompt.fill('run it');
  await prompt.press('Enter');
  const bash = page.locator('.tool[data-tool="Bash"]');
  await bash.locator('.tool-state', { hasText: 'exit 0' }).waitFor();
  await bash.locator('.tool-head').click();
  await bash.locator('.tool-out', { hasText: 'no-approval-needed' }).waitFor();
  t.is(await page.getByRole('group', { name: 'Approval' }).count(), 0);

  // Plan mode on, then off again, through the profile.
  await page.getByLabel('Plan mode').check();
  await until(async () => (await api('GET', `/api/v1/sessions/${sid}/status`)).plan_mode === true, 30_000, 'plan mode on');
  await page.getByLabel('Plan mode').uncheck();
  await until(async () => (await api('GET', `/api/v1/sessions/${sid}/status`)).plan_mode === false, 30_000, 'plan mode off');

  // An attachment: uploaded through /api/v1/files, sent as an image part, shown on the turn.
  llm.setScript(scripts.helloText);
  await page.getByLabel('Attachment file').setInputFiles({ name: 'dot.png', mimeType: 'image/png', buffer: PNG_1PX });
  await page.getByLabel('Attachments').getByText('dot.png').waitFor();
  await prompt.fill('what is in the picture');
  await shot('attachment');
  await prompt.press('Enter');
  await page.locator('.bubble.assistant', { hasText: 'Hello, world' }).nth(2).waitFor();
  t.regex(JSON.stringify(lastBody(llm).messages), /image|data:image\/png/, 'the image reached the model');

  // Skills: the list, a pick puts "/name " in the prompt; sending runs the skill's activation.
  await page.getByRole('button', { name: 'Skills' }).click();
  const skills = page.getByRole('listbox', { name: 'Skills' });
  const first = skills.getByRole('option').first();
  await first.waitFor();
  await shot('skills');
  const name = ((await first.locator('.p-name').textContent()) ?? '').replace(/^\//, '');
  t.truthy(name);
  await first.dispatchEvent('mousedown');
  t.is(await prompt.inputValue(), `/${name} `);
  llm.setScript(scripts.helloText);
  const sent = page.waitForRequest((r) => r.method() === 'POST' && r.url().endsWith(`/sessions/${sid}/prompts`));
  await prompt.press('Enter');
  t.deepEqual((await sent).postDataJSON().skills, [{ name }], 'sent as the skill\'s activation');
  await page.locator('.bubble.assistant', { hasText: 'Hello, world' }).nth(3).waitFor();
  await shot('skill-ran');
  t.deepEqual(pageErrors, []);
});

test('edits: the diff in the tool block, the turn\'s file changes; an "other" answer; a plan review\'s options', async (t) => {
  const { page, llm, shot, pageErrors } = await sessionJourney(t);
  const prompt = page.getByLabel('Prompt');
  let changesAsked = 0;
  page.on('request', (r) => { if (r.url().includes('/file-history/changes')) changesAsked++; });

  // Write then Edit, each approved (once, then for the session) from its card.
  llm.setScript(
    { events: [{ tool_call: { id: 'w1', name: 'Write', args: { file_path: 'notes.txt', content: 'alpha\nbeta\ngamma\n' } } }] },
    { events: [{ tool_call: { id: 'e1', name: 'Edit', args: { file_path: 'notes.txt', old_string: 'beta', new_string: 'BETA' } } }] },
    scripts.helloText,
  );
  await prompt.fill('write and edit notes');
  await prompt.press('Enter');
  const approval = page.getByRole('group', { name: 'Approval' });
  await approval.filter({ has: page.locator('strong', { hasText: /^Write$/ }) }).getByRole('button', { name: 'Approve for session' }).click();
  const editCard = approval.filter({ has: page.locator('strong', { hasText: /^Edit$/ }) });
  await editCard.or(page.locator('.tool.done[data-tool="Edit"]')).first().waitFor();
  if (await editCard.count()) await editCard.getByRole('button', { name: 'Approve', exact: true }).click();
  await page.locator('.bubble.assistant', { hasText: 'Hello, world' }).waitFor();
  const edit = page.locator('.tool[data-tool="Edit"]');
  await edit.locator('pre.diff .del', { hasText: 'beta' }).waitFor();
  await edit.locator('pre.diff .add', { hasText: 'BETA' }).waitFor();
  await page.locator('.tool[data-tool="Write"] pre.diff .add', { hasText: 'gamma' }).waitFor();

  // The turn's file changes (file-history): notes.txt added; a click shows its diff over the turn.
  const changes = page.getByRole('region', { name: 'Files changed' });
  const row = changes.getByRole('button', { name: /notes\.txt/ });
  await row.waitFor();
  t.regex((await row.textContent()) ?? '', /A.*notes\.txt.*\+3/);
  await row.click();
  await changes.getByLabel('changes to notes.txt').locator('.add', { hasText: 'BETA' }).waitFor();
  await shot('file-changes');
  const askedOnce = changesAsked;
  t.true(askedOnce >= 1);

  // A question answered with free text ("other") and a note.
  llm.setScript({ events: [{ tool_call: { id: 'q1', name: 'AskUserQuestion', args: { questions: [{ question: 'Which color?', header: 'Color', options: [{ label: 'Red' }, { label: 'Blue' }] }] } } }] }, scripts.helloText);
  await prompt.fill('ask me');
  await prompt.press('Enter');
  const question = page.getByRole('group', { name: 'Question' });
  await question.waitFor();
  await question.getByLabel('Other answer: Which color?').fill('Teal green');
  await question.getByLabel('Note for the agent').fill('any shade is fine');
  await shot('question-other');
  await question.getByRole('button', { name: 'Answer' }).click();
  await page.locator('.bubble.assistant', { hasText: 'Hello, world' }).nth(1).waitFor();
  t.true(llm.requests.some((r) => JSON.stringify(r.body).includes('Teal green')), 'the free-text answer reached the model');

  // A plan review: the card offers the review's own options (selected_label) beside Reject and Cancel.
  llm.setScript(
    { events: [{ tool_call: { id: 'p0', name: 'EnterPlanMode', args: {} } }] },
    { events: [{ tool_call: { id: 'p1', name: 'ExitPlanMode', args: { plan: '1. read\n2. write' } } }] },
    scripts.helloText, scripts.helloText,
  );
  await prompt.fill('plan it');
  await prompt.press('Enter');
  const review = page.getByRole('group', { name: 'Approval' }).filter({ hasText: 'ExitPlanMode' });
  await review.waitFor({ timeout: 30_000 });
  const buttons = await review.getByRole('button').allTextContents();
  t.true(buttons.length >= 4, buttons.join(', '));
  t.true(buttons.includes('Reject') && buttons.includes('Cancel'), buttons.join(', '));
  t.false(buttons.includes('Approve for session'), 'a plan review offers its options instead');
  await shot('plan-review');
  await review.getByRole('button').first().click();
  await review.waitFor({ state: 'detached' });

  // A finished turn's recorded file changes are not asked again: not for the later turns' ops, nor when
  // the session is opened again (another session, then back).
  const here = new URL(page.url()).pathname;
  await page.getByRole('button', { name: /^New session in / }).first().click();
  await page.waitForURL((u) => u.pathname !== here);
  await page.goBack();
  await page.waitForURL((u) => u.pathname === here);
  await changes.getByRole('button', { name: /notes\.txt/ }).waitFor();
  t.is(changesAsked, askedOnce, 'the file changes were asked once');
  t.deepEqual(pageErrors, []);
});

test('queue: prompts sent during a turn wait, one is removed, one steered; older turns page in on scroll', async (t) => {
  const { page, llm, shot, pageErrors, rest: api, sid } = await sessionJourney(t);
  const prompt = page.getByLabel('Prompt');

  // A slow reply: two prompts sent meanwhile wait in the queue; one is removed, the other steered into
  // the running turn (it reaches the model with the turn's next step).
  const WORDS = 40;
  llm.setScript({ events: Array.from({ length: WORDS }, (_, i) => ({ text: `w${i} ` })), delay_ms: 100 }, scripts.helloText, scripts.helloText);
  await prompt.fill('a long job');
  await prompt.press('Enter');
  await page.getByRole('button', { name: 'Abort' }).waitFor();
  await prompt.fill('second thought');
  await prompt.press('Enter');
  await prompt.fill('third thought');
  await prompt.press('Enter');
  const queue = page.getByRole('region', { name: 'Queue' });
  await queue.getByText('2 queued').waitFor();
  await shot('queue');
  await queue.locator('li', { hasText: 'third thought' }).getByRole('button', { name: 'Remove' }).click();
  await queue.getByText('1 queued').waitFor();
  await queue.locator('li', { hasText: 'second thought' }).getByRole('button', { name: 'Steer' }).click();
  await queue.waitFor({ state: 'detached', timeout: 30_000 });
  await page.getByRole('button', { name: 'Abort' }).waitFor({ state: 'detached', timeout: 30_000 });
  t.is(llm.requests.length, 2, 'one turn of two steps: the removed prompt never ran');
  t.true(JSON.stringify(llm.requests[1]!.body.messages).includes('second thought'), 'the steered prompt went in at the next step');
  t.false(JSON.stringify(llm.requests[1]!.body.messages).includes('third thought'));
  t.is((await api('GET', `/api/v1/sessions/${sid}/prompts`)).queued.length, 0);

  // 60 more turns through REST (queued behind each other), then the page opens on the newest 50.
  const N = 60;
  llm.setScript(...Array.from({ length: N + 2 }, (_, i) => ({ events: [{ text: `reply number ${i}` }] })));
  for (let i = 0; i < N; i++) await api('POST', `/api/v1/sessions/${sid}/prompts`, { content: [{ type: 'text', text: `prompt number ${i}` }] });
  await until(async () => {
    const p = await api('GET', `/api/v1/sessions/${sid}/prompts`);
    return p.active === null && p.queued.length === 0;
  }, 60_000, 'the queued prompts all ran');
  await page.reload();
  await page.locator('.bubble.user', { hasText: `prompt number ${N - 1}` }).waitFor();
  const turns = async () => Number(await page.locator('.log').getAttribute('data-turns'));
  const before = await turns();
  t.true(before <= 55, `opened on a page of turns, not all (${before})`);
  t.true(await page.locator('article.turn').count() < before, 'only the turns near the view are rendered');
  t.is(await page.locator('.bubble.user', { hasText: 'a long job' }).count(), 0, 'the first turn is not on the first page');
  // Scrolling to the top pages the older turns in; the reader's place is kept (the top turn stays in view).
  await page.locator('.log').evaluate((el) => { el.scrollTop = 0; });
  await page.waitForFunction((n) => Number((document.querySelector('.log') as HTMLElement).dataset.turns) > n, before);
  const top = await page.locator('.log').evaluate((el) => el.scrollTop);
  t.true(top > 0, `scroll position moved down with the prepended turns (${top})`);
  await page.locator('.log').evaluate((el) => { el.scrollTop = 0; });
  await page.locator('.bubble.user', { hasText: 'a long job' }).waitFor({ state: 'attached' });
  await page.locator('.log .older').waitFor({ state: 'detached' });
  await shot('paged-in');
  t.deepEqual(pageErrors, []);
});
