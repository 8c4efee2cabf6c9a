import test from 'ava';
import path from 'node:path';
import { until } from '../../helpers/wait.ts';
import { publishedUi, tokenUrl, type PublishedUi } from './ui.ts';

// The published kimi-code web UI (npm `@moonshot-ai/kimi-code`, pinned; its dist-web only, through a same-origin
// proxy: proxy.ts) driven through a user's whole journey against the real daemon and the fixture LLM, in Debian's
// chromium: open with the token, add a workspace, stream a turn, raise and approve a Bash call and see its output,
// answer a question, list, reload. Every step ends with no console error, no page error and no toast; a failing step
// prints the frame or API answer that broke the UI (ui.ts Recorder). Screenshots: test-results/browser/.

const WORDS = 40;
const words = Array.from({ length: WORDS }, (_, i) => `w${i}`);
const streamed = { events: words.map((w) => ({ text: `${w} ` })), delay_ms: 60, usage: { input: 10, output: WORDS } };
const bash = { events: [{ tool_call: { id: 'b1', name: 'Bash', args: { command: 'echo hi-from-bash', description: 'say hi' } } }] };
const question = {
  events: [{
    tool_call: {
      id: 'q1', name: 'AskUserQuestion',
      args: { questions: [{ question: 'Which color?', header: 'Color', options: [{ label: 'Red', description: 'warm' }, { label: 'Blue', description: 'cool' }] }] },
    },
  }],
};
const say = (text: string) => ({ events: [{ text }] });

/**
 * Runs the journey's steps in order; a step fails on its own error or on any trouble the page reported meanwhile, and
 * the journey stops there. SVC_CODE_PUBLISHED_UI_ALL_STEPS=1 runs on after a failure (to count the steps that pass
 * against another daemon: SVC_CODE_PUBLISHED_UI_DAEMON_ROOT), and the test fails at the end.
 */
function stepper(ui: PublishedUi, log: (s: string) => void) {
  const done: string[] = [];
  const failed: string[] = [];
  const keepGoing = process.env.SVC_CODE_PUBLISHED_UI_ALL_STEPS === '1';
  const fail = async (name: string, why: string) => {
    await ui.shot(`failed-${name}`).catch(() => undefined);
    const text = `step "${name}" failed (${done.length} steps passed: ${done.join(', ')}): ${why}\n${ui.rec.report()}`;
    if (!keepGoing) throw new Error(text);
    failed.push(name);
    log(`FAILED ${name}: ${why.slice(0, 300)}`);
  };
  return {
    done,
    failed,
    async step(name: string, body: () => Promise<void>): Promise<void> {
      const before = ui.rec.troubles().length;
      try {
        await body();
      } catch (err) {
        return fail(name, String(err));
      }
      const troubles = ui.rec.troubles().slice(before);
      if (troubles.length) return fail(name, `the page reported trouble: ${troubles.map((x) => x.text.slice(0, 200)).join(' | ')}`);
      await ui.shot(name);
      done.push(name);
      log(`step ${done.length}: ${name}`);
    },
  };
}

test('the published web UI: open with the token, add a workspace, stream, approve a Bash call, answer a question, list, reload', async (t) => {
  const ui = await publishedUi(t);
  const { page, llm } = ui;
  const { step, done, failed } = stepper(ui, (s) => t.log(s));
  const composer = page.getByRole('combobox', { name: 'Message input' });
  const send = async (text: string) => {
    await composer.click();
    await page.keyboard.type(text);
    await page.keyboard.press('Enter');
  };
  const folderName = path.basename(ui.folder);

  await step('open with the token', async () => {
    await page.goto(tokenUrl(ui.origin));
    // First run: the welcome screen; skipped as a user would.
    await page.getByRole('button', { name: 'Skip' }).click();
    await page.getByRole('button', { name: 'Choose folder…' }).waitFor();
    if (page.url().includes('token=')) throw new Error(`the token stayed in the address bar: ${page.url()}`);
  });

  await step('add a workspace', async () => {
    await page.getByRole('button', { name: 'Choose folder…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Add workspace' });
    await dialog.getByRole('button', { name: 'Enter an absolute path' }).click();
    await dialog.getByPlaceholder('/absolute/path/to/project').fill(ui.folder);
    await dialog.getByRole('button', { name: 'Add', exact: true }).click();
    await dialog.waitFor({ state: 'detached' });
    await page.getByText(folderName, { exact: true }).first().waitFor();
  });

  await step('stream a turn', async () => {
    llm.setScript(streamed);
    await send('hello there');
    await page.waitForFunction((all) => document.body.innerText.includes(all), words.join(' '), { timeout: 30_000 });
    // Streamed: the page got the text as `append` ops before the turn completed (not only whole, at its end).
    const ops = () => ui.rec.entries.filter((e) => e.kind === 'ws<').map((e) => JSON.parse(e.text))
      .filter((f) => f.type === 'transcript.ops').flatMap((f) => f.payload.ops);
    const completed = await until(() => ops().findIndex((o) => o.op === 'turn.upsert' && o.turn.state === 'completed') + 1, 30_000, 'the turn completed') - 1;
    const firstAppend = ops().findIndex((o) => o.op === 'append');
    if (firstAppend < 0 || completed < 0 || firstAppend > completed) throw new Error(`no streamed text before the turn completed (append at ${firstAppend}, completed at ${completed})`);
  });

  await step('the first prompt names the session', async () => {
    // The sidebar's row of the session (its workspace group lists it by title).
    await page.locator('.group-sessions').getByText('hello there', { exact: true }).waitFor();
  });

  await step('a Bash call asks for approval, with its command', async () => {
    llm.setScript(bash, say('Done.'));
    await send('run the tool');
    await page.getByText('$ echo hi-from-bash').waitFor();
    await page.getByText(`Working directory: ${ui.folder}`).waitFor();
  });

  await step('approve it and see its output', async () => {
    await page.getByRole('button', { name: /^Approve(?! for session)/ }).last().click();
    // The tool block's output (before it ran: "Waiting for output…").
    const output = () => /Output\s+hi-from-bash\n/.test(document.body.innerText);
    await page.waitForFunction(output);
    await page.getByText('Done.', { exact: true }).waitFor();
  });

  await step('answer a question', async () => {
    llm.setScript(question, say('Blue it is.'));
    await send('ask me');
    await page.getByText('Which color?').first().waitFor();
    await page.getByText('Blue', { exact: true }).click();
    await page.getByRole('button', { name: /Submit/ }).click();
    await page.getByText('Blue it is.', { exact: true }).waitFor();
  });

  await step('list: the session in its workspace, after a new session', async () => {
    await page.getByText('New Session', { exact: true }).click();
    await page.getByRole('button', { name: 'Choose folder…' }).or(composer).first().waitFor();
    const row = page.locator('.group-sessions').getByText('hello there', { exact: true });
    await row.click();
    await page.getByText('Blue it is.', { exact: true }).waitFor();
  });

  await step('reload: the whole conversation again', async () => {
    await page.reload();
    for (const text of ['hello there', 'Done.', 'Blue it is.']) await page.getByText(text, { exact: true }).first().waitFor();
    await page.waitForFunction((all) => document.body.innerText.includes(all), words.join(' '));
    await page.waitForFunction(() => /Output\s+hi-from-bash\n/.test(document.body.innerText));
  });

  t.deepEqual(failed, []);
  t.is(done.length, 9, done.join(', '));
  t.deepEqual(ui.rec.troubles(), [], ui.rec.report());
  t.deepEqual(ui.rec.badFrames(), [], 'every frame the UI received keeps the client contract');
  t.deepEqual(ui.rec.badResponses().map((e) => e.text), [], 'every API answer was a success');
});
