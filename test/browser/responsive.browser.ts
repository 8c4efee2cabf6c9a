import test from 'ava';
import type { Page } from 'playwright-core';
import { sendPrompt, sessionJourney } from './helpers.ts';

// A narrow window (issue 29, must fix 2): at 800 px with the side panel open and at 420 px the page never
// scrolls sideways and the chat keeps at least 60% of the width; the sidebar collapses and comes back as
// an overlay; the composer stays usable.

/** Sideways overflow of the page, and the chat's share of the window. */
const measure = (page: Page) => page.evaluate(() => {
  const chat = document.querySelector('main.chat')!.getBoundingClientRect();
  const prompt = document.querySelector('textarea[aria-label="Prompt"]')!.getBoundingClientRect();
  return {
    overflow: Math.max(document.documentElement.scrollWidth, document.body.scrollWidth) - window.innerWidth,
    chatShare: chat.width / window.innerWidth,
    promptVisible: prompt.width > 150 && prompt.left >= 0 && prompt.right <= window.innerWidth && prompt.bottom <= window.innerHeight,
  };
});

const LONG = `Here is a long unbroken line: ${'x'.repeat(300)}\n\n\`\`\`sh\n${'echo a-very-long-command-line '.repeat(12)}\n\`\`\``;

test('800 px with the side panel open, and 420 px: no sideways scroll, the chat at least 60% wide, the sidebar collapsible', async (t) => {
  const { page, llm, shot, pageErrors } = await sessionJourney(t);
  llm.setScript({ events: [{ text: LONG }] });
  await sendPrompt(page, 'a long answer please');
  await page.locator('article.turn.completed').waitFor();

  // 800 px, the side panel open.
  await page.setViewportSize({ width: 800, height: 700 });
  await page.getByRole('button', { name: 'Panels' }).click();
  await page.getByRole('complementary', { name: 'Side panel' }).waitFor();
  const at800 = await measure(page);
  await shot('800-panel-open');
  t.true(at800.overflow <= 0, `no sideways scroll at 800 px (${at800.overflow} px)`);
  t.true(at800.chatShare >= 0.6, `the chat is ${Math.round(at800.chatShare * 100)}% of 800 px`);
  t.true(at800.promptVisible, 'the prompt is in view');
  await page.getByRole('button', { name: 'Close the side panel' }).click();
  await page.getByRole('complementary', { name: 'Side panel' }).waitFor({ state: 'detached' });

  // 420 px: the sidebar is folded away; the toggle brings it back over the chat, and picking a session folds it.
  await page.setViewportSize({ width: 420, height: 760 });
  const sidebar = page.getByRole('complementary', { name: 'Workspaces and sessions' });
  await sidebar.waitFor({ state: 'hidden' });
  const at420 = await measure(page);
  await shot('420');
  t.true(at420.overflow <= 0, `no sideways scroll at 420 px (${at420.overflow} px)`);
  t.true(at420.chatShare >= 0.6, `the chat is ${Math.round(at420.chatShare * 100)}% of 420 px`);
  t.true(at420.promptVisible, 'the prompt is in view');
  const toggle = page.getByRole('button', { name: 'Toggle sidebar' });
  await toggle.click();
  await sidebar.waitFor({ state: 'visible' });
  t.is(await toggle.getAttribute('aria-expanded'), 'true');
  t.true((await measure(page)).overflow <= 0, 'the open sidebar overlays, it does not widen the page');
  await shot('420-sidebar');
  await sidebar.locator('li a').first().click();
  await sidebar.waitFor({ state: 'hidden' });

  // The side panel at 420 px overlays the chat, and still no sideways scroll.
  await page.getByRole('button', { name: 'Panels' }).click();
  await page.getByRole('complementary', { name: 'Side panel' }).waitFor();
  t.true((await measure(page)).overflow <= 0, 'the panel overlays at 420 px');
  await shot('420-panel');

  // Wide again: the sidebar is back beside the chat.
  await page.getByRole('button', { name: 'Close the side panel' }).click();
  await page.setViewportSize({ width: 1400, height: 800 });
  await sidebar.waitFor({ state: 'visible' });
  t.deepEqual(pageErrors, []);
});
