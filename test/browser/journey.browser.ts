import test from 'ava';
import { mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { scripts } from '../../fixtures/llm/index.ts';
import { TEST_TOKEN } from '../helpers/wire.ts';
import { journey, sendPrompt } from './helpers.ts';

// A person's first session with the web UI, in Debian's chromium against the real daemon (started as
// `npm start` runs it) and the fixture LLM. Screenshots: test-results/browser/. docs/web-ui.md.

const WORDS = 40;
const streamed = { events: Array.from({ length: WORDS }, (_, i) => ({ text: `w${i} ` })), delay_ms: 60, usage: { input: 10, output: WORDS } };
const fullText = Array.from({ length: WORDS }, (_, i) => `w${i}`).join(' ');
const norm = (s: string | null) => (s ?? '').replace(/\s+/g, ' ').trim();

test('open the printed URL, add a workspace, stream a reply across a cut WebSocket, approve a tool, answer a question, reload', async (t) => {
  const { page, url, llm, shot, pageErrors } = await journey(t);

  // The printed URL: the token is taken from the fragment and the fragment leaves the address bar.
  t.regex(url, /^http:\/\/127\.0\.0\.1:\d+\/#token=/);
  await page.goto(url);
  await page.getByLabel('Workspace folder').waitFor();
  t.false(page.url().includes('token'), page.url());
  t.is(await page.evaluate(() => localStorage.getItem('svc-code.token')), TEST_TOKEN);
  await shot('opened');

  // Add a workspace by its folder, start a session in it.
  const folder = await mkdtemp(path.join(os.tmpdir(), 'webui-project-'));
  await writeFile(path.join(folder, 'README.md'), '# demo\n');
  await page.getByLabel('Workspace folder').fill(folder);
  await page.getByRole('button', { name: 'Add', exact: true }).click();
  const newSession = page.getByRole('button', { name: `New session in ${path.basename(folder)}` });
  await newSession.waitFor();
  await shot('workspace-added');
  await newSession.click();
  await page.waitForURL(/\/s\/[^/]+$/);
  const sessionPath = new URL(page.url()).pathname;

  // A prompt, its reply streamed: seen part-way, then whole, although the WebSocket is cut mid-stream.
  llm.setScript(streamed);
  await sendPrompt(page, 'hello there');
  await page.locator('.bubble.user', { hasText: 'hello there' }).waitFor();
  const assistant = page.locator('.bubble.assistant').first();
  await page.waitForFunction(() => {
    const text = document.querySelector('.bubble.assistant')?.textContent ?? '';
    return text.includes('w3 ') && !text.includes('w39');
  });
  t.pass('the reply was on screen part-way through');
  await shot('streaming');
  await page.evaluate(() => (window as any).__svcSocket.drop());
  await page.locator('.conn.off').waitFor();
  await page.locator('article.turn.completed').first().waitFor({ timeout: 30_000 });
  await page.locator('.conn.on').waitFor();
  await page.waitForFunction((n) => (document.querySelector('.bubble.assistant')?.textContent ?? '').includes(`w${n - 1}`), WORDS);
  t.is(norm(await assistant.textContent()), fullText, 'no text lost or doubled across the reconnect');
  await shot('streamed');

  // A tool call that needs approval: the card, Approve, the output in the tool block.
  llm.setScript({ events: [{ tool_call: { id: 'b1', name: 'Bash', args: { command: 'echo hello-from-tool' } } }] }, scripts.helloText);
  await page.getByLabel('Prompt').fill('run the tool');
  await page.getByRole('button', { name: 'Send' }).click();
  const approval = page.getByRole('group', { name: 'Approval' });
  await approval.waitFor();
  t.regex(norm(await approval.textContent()), /Bash/);
  await shot('approval');
  await approval.getByRole('button', { name: 'Approve', exact: true }).click();
  // The tool row is compact: opened, it shows the command's output; closed again for the comparison below.
  const row = page.locator('.tool[data-tool="Bash"]');
  await row.locator('.tool-state', { hasText: 'exit 0' }).waitFor();
  await row.locator('.tool-head').click();
  await row.locator('.tool-out', { hasText: 'hello-from-tool' }).waitFor();
  await row.locator('.tool-head').click();
  await page.locator('.bubble.assistant', { hasText: 'Hello, world' }).waitFor();
  t.is(await approval.count(), 0, 'the card is gone once decided');
  await shot('approved');

  // A question: pick an option, answer.
  llm.setScript({ events: [{ tool_call: { id: 'q1', name: 'AskUserQuestion', args: { questions: [{ question: 'Which color?', header: 'Color', options: [{ label: 'Red' }, { label: 'Blue' }] }] } } }] }, scripts.helloText);
  await sendPrompt(page, 'ask me');
  const question = page.getByRole('group', { name: 'Question' });
  await question.waitFor();
  await shot('question');
  await question.getByLabel('Blue').check();
  await question.getByRole('button', { name: 'Answer' }).click();
  await t.notThrowsAsync(page.locator('.bubble.assistant', { hasText: 'Hello, world' }).nth(1).waitFor());
  t.is(await question.count(), 0);
  t.true(llm.requests.some((r) => JSON.stringify(r.body).includes('Blue')), 'the answer reached the model');
  await shot('answered');

  // Reload: the same history, from the same URL (the SPA route), without the token in it. (A tool row's
  // state says how long the call took only when this page watched it run: left out of the comparison.)
  const history = async () => norm(await page.locator('.log').evaluate((el) => {
    const copy = el.cloneNode(true) as HTMLElement;
    for (const s of copy.querySelectorAll('.tool-state')) s.remove();
    return copy.textContent;
  }));
  const before = await history();
  await page.reload();
  await page.locator('.bubble.assistant', { hasText: 'Hello, world' }).nth(1).waitFor();
  t.is(new URL(page.url()).pathname, sessionPath);
  t.is(await history(), before);
  await shot('reloaded');
  t.deepEqual(pageErrors, []);
});

test('no token: the token field; a wrong stored token brings it back; the right one opens the sidebar', async (t) => {
  const { page, url, shot, pageErrors } = await journey(t);
  const base = url.slice(0, url.indexOf('#'));
  await page.goto(base);
  await page.getByLabel('Access token').waitFor();
  await shot('token-field');
  await page.evaluate(() => localStorage.setItem('svc-code.token', 'wrong'));
  await page.reload();
  await page.getByLabel('Access token').waitFor({ timeout: 30_000 });
  await page.getByLabel('Access token').fill(TEST_TOKEN);
  await page.getByRole('button', { name: 'Connect' }).click();
  await page.getByLabel('Workspace folder').waitFor();
  await page.locator('.conn.on').waitFor();
  await shot('connected');
  t.is(await page.title(), 'svc-code');
  t.deepEqual(pageErrors, []);
});
