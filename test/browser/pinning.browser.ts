import test from 'ava';
import type { Page } from 'playwright-core';
import { scripts } from '../../fixtures/llm/index.ts';
import { until } from '../helpers/wait.ts';
import { sendPrompt, sessionJourney } from './helpers.ts';

// The chat keeps the bottom (issue 29, must fix 1): a prompt sent while a turn runs brings up the queue bar,
// which shrinks the log; the view must stay at the bottom and follow the reply. A reader who scrolled up is
// left there while new content arrives, with a "Jump to latest" button; their own send takes them back down.

/** How far the log's visible part is from its end, in px. */
const gap = (page: Page) => page.locator('.log').evaluate((el) => el.scrollHeight - el.scrollTop - el.clientHeight);
const atBottom = async (page: Page) => (await gap(page)) < 4;
/** Waits until the view is at the bottom; the failure names how far from it the view was. */
const pinned = (page: Page, what: string) => until(() => atBottom(page), 30_000, what).catch(async (e: Error) => {
  throw new Error(`${e.message}: ${await gap(page)} px from the bottom`);
});
const slow = (tag: string, words = 30) => ({ events: Array.from({ length: words }, (_, i) => ({ text: `${tag}${i} ` })), delay_ms: 80 });
const turnDone = (page: Page, text: string) => page.locator('article.turn.completed', { hasText: text }).last().waitFor({ timeout: 60_000 });

test('the view stays at the bottom through the queue bar; a reader scrolled up gets "Jump to latest"; their own send re-pins', async (t) => {
  const { page, llm, shot, pageErrors, rest, sid } = await sessionJourney(t);

  // Enough turns for the log to scroll, each reply a few lines long.
  const N = 24;
  llm.setScript(...Array.from({ length: N }, (_, i) => ({ events: [{ text: `Reply ${i}.\n\nA second paragraph so the turn takes some room.\n\n- one\n- two\n- three` }] })));
  for (let i = 0; i < N; i++) await rest('POST', `/api/v1/sessions/${sid}/prompts`, { content: [{ type: 'text', text: `filler ${i}` }] });
  await until(async () => {
    const p = await rest('GET', `/api/v1/sessions/${sid}/prompts`);
    return p.active === null && p.queued.length === 0;
  }, 60_000, 'the filler turns ran');
  await page.reload();
  await page.locator('.bubble.assistant', { hasText: `Reply ${N - 1}.` }).waitFor();
  await pinned(page, 'opened at the bottom');
  t.true(await page.locator('.log').evaluate((el) => el.scrollHeight > el.clientHeight * 2), 'the log scrolls');

  // Prompts sent at the bottom, one after another: each flashes the queue bar while the daemon takes it in;
  // the view follows every reply to its end.
  for (let k = 0; k < 3; k++) {
    llm.setScript(slow(`idle${k}x`, 20));
    await sendPrompt(page, `sent at the bottom ${k}`);
    await turnDone(page, `idle${k}x19`);
    await pinned(page, `at the bottom after send ${k}`);
  }

  // A slow reply; a second prompt sent while it streams waits in the queue (the bar shrinks the log).
  llm.setScript(slow('alpha'), scripts.helloText);
  await sendPrompt(page, 'first while at the bottom');
  await page.locator('.bubble.assistant', { hasText: 'alpha3' }).waitFor();
  await sendPrompt(page, 'queued behind it');
  await page.getByRole('region', { name: 'Queue' }).waitFor();
  await shot('queue-bar');
  await page.locator('.bubble.assistant', { hasText: 'Hello, world' }).last().waitFor({ timeout: 60_000 });
  await turnDone(page, 'Hello, world');
  await pinned(page, 'still at the bottom after the queued turn');
  t.is(await page.getByRole('button', { name: 'Jump to latest' }).count(), 0, 'no jump button at the bottom');

  // The reader scrolls up; a turn started elsewhere (REST) streams in: the view stays put, the button shows.
  await page.locator('.log').evaluate((el) => { el.scrollTop = el.scrollTop - 700; });
  await until(async () => (await gap(page)) > 600, 5_000, 'scrolled up');
  llm.setScript(slow('beta'));
  await rest('POST', `/api/v1/sessions/${sid}/prompts`, { content: [{ type: 'text', text: 'from elsewhere' }] });
  const jump = page.getByRole('button', { name: 'Jump to latest' });
  await jump.waitFor({ timeout: 30_000 });
  t.true((await gap(page)) > 600, 'the reader was not pulled down');
  await shot('jump-to-latest');
  await jump.click();
  await pinned(page, 'at the bottom after the jump');
  await turnDone(page, 'beta29');
  await pinned(page, 'following the stream to its end');
  await jump.waitFor({ state: 'detached' });

  // Scrolled up again, the reader sends a prompt of their own: back to the bottom, following the reply.
  await page.locator('.log').evaluate((el) => { el.scrollTop = el.scrollTop - 900; });
  await until(async () => (await gap(page)) > 800, 5_000, 'scrolled up again');
  llm.setScript(slow('gamma'));
  await sendPrompt(page, 'my own prompt');
  await turnDone(page, 'gamma29');
  await pinned(page, 'at the bottom after one\'s own send');
  t.is(await jump.count(), 0);
  await shot('re-pinned');
  t.deepEqual(pageErrors, []);
});
