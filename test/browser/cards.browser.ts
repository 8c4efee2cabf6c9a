import test from 'ava';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { until } from '../helpers/wait.ts';
import { sendPrompt, sessionJourney } from './helpers.ts';

// The approval and question cards' other decisions (docs/web-ui.md, "Interactions"): Reject with
// feedback (the tool does not run, the turn goes on with the rejection), a question dismissed, a
// multi-select question answered with two options.

const bodyText = (llm: { requests: { body: any }[] }, i: number) => JSON.stringify(llm.requests[i]?.body?.messages ?? []);

test('reject a tool call with feedback; dismiss a question; answer a multi-select question', async (t) => {
  const { page, llm, shot, pageErrors, folder } = await sessionJourney(t);

  // Reject: the command never runs; the model gets the rejection and the feedback, and the turn goes on.
  llm.setScript(
    { events: [{ tool_call: { id: 'r1', name: 'Bash', args: { command: 'touch rejected.txt' } } }] },
    { events: [{ text: 'Understood, I left it alone.' }] },
  );
  await sendPrompt(page, 'make a file');
  const approval = page.getByRole('group', { name: 'Approval' });
  await approval.waitFor();
  await approval.getByLabel('Feedback for the agent').fill('not in this folder please');
  await shot('reject-with-feedback');
  await approval.getByRole('button', { name: 'Reject' }).click();
  await approval.waitFor({ state: 'detached' });
  await page.locator('.bubble.assistant', { hasText: 'Understood, I left it alone.' }).waitFor();
  const bash = page.locator('.tool[data-tool="Bash"]');
  t.false(await bash.evaluate((el) => el.classList.contains('done')), 'the tool block is not shown as done');
  t.regex((await bash.textContent()) ?? '', /rejected this tool call\. Feedback: not in this folder please/, 'the block says it was rejected');
  // Readable: the error's text is not drawn in the block's own background colour (the app's error banner
  // style once matched every element of class "error", the tool block's state class too).
  const colours = await bash.evaluate((el) => ({ bg: getComputedStyle(el).backgroundColor, fg: getComputedStyle(el.querySelector('.tool-err')!).color, state: getComputedStyle(el.querySelector('.tool-state')!).color }));
  t.not(colours.fg, colours.bg, JSON.stringify(colours));
  t.not(colours.state, colours.bg, JSON.stringify(colours));
  t.false(existsSync(path.join(folder, 'rejected.txt')), 'the command did not run');
  t.is(llm.requests.length, 2, 'the turn went on to a second step');
  t.regex(bodyText(llm, 1), /not in this folder please/, 'the feedback reached the model');
  await page.getByRole('button', { name: 'Abort' }).waitFor({ state: 'detached' });
  await shot('rejected');

  // Dismiss: the card goes, the question tool ends as dismissed, the turn goes on.
  llm.setScript(
    { events: [{ tool_call: { id: 'q1', name: 'AskUserQuestion', args: { questions: [{ question: 'Which color?', header: 'Color', options: [{ label: 'Red' }, { label: 'Blue' }] }] } } }] },
    { events: [{ text: 'Fine, no color then.' }] },
  );
  await sendPrompt(page, 'ask me a color');
  const question = page.getByRole('group', { name: 'Question' });
  await question.waitFor();
  await shot('question-to-dismiss');
  await question.getByRole('button', { name: 'Dismiss' }).click();
  await question.waitFor({ state: 'detached' });
  await page.locator('.bubble.assistant', { hasText: 'Fine, no color then.' }).waitFor();
  t.is(llm.requests.length, 4);
  t.regex(bodyText(llm, 3), /dismissed the question/, 'the model was told the question was dismissed');
  await page.getByRole('button', { name: 'Abort' }).waitFor({ state: 'detached' });

  // Multi-select: checkboxes; two options checked are sent as `multi` and reach the model.
  llm.setScript(
    { events: [{ tool_call: { id: 'q2', name: 'AskUserQuestion', args: { questions: [{ question: 'Which toppings?', header: 'Pizza', multiSelect: true, options: [{ label: 'Cheese' }, { label: 'Olives' }, { label: 'Basil' }] }] } } }] },
    { events: [{ text: 'Cheese and basil it is.' }] },
  );
  await sendPrompt(page, 'order a pizza');
  await question.waitFor();
  t.is(await question.locator('input[type="checkbox"]').count(), 3, 'one checkbox per option');
  await question.getByLabel('Cheese').check();
  await question.getByLabel('Olives').check();
  await question.getByLabel('Basil').check();
  await question.getByLabel('Olives').uncheck();
  await shot('multi-select');
  const answered = page.waitForRequest((r) => r.method() === 'POST' && /\/questions\/[^/:]+$/.test(new URL(r.url()).pathname));
  await question.getByRole('button', { name: 'Answer' }).click();
  const sent = (await answered).postDataJSON();
  const answer = Object.values(sent.answers)[0] as { kind: string; option_ids: string[] };
  t.is(answer.kind, 'multi');
  t.is(answer.option_ids.length, 2);
  await question.waitFor({ state: 'detached' });
  await page.locator('.bubble.assistant', { hasText: 'Cheese and basil it is.' }).waitFor();
  await until(() => llm.requests.length === 6, 10_000, 'the second step');
  t.regex(bodyText(llm, 5), /Which toppings\?\\" -> Cheese, Basil/, 'the two options reached the model, the unchecked one not');
  await shot('multi-answered');
  t.deepEqual(pageErrors, []);
});
