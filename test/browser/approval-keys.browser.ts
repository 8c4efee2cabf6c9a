import test from 'ava';
import type { Page } from 'playwright-core';
import { sendPrompt, sessionJourney } from './helpers.ts';

// Approvals by keyboard, docked (issue 29, must fix 4): the pending approval sits by the composer (not in
// the scrolling log) with the focus on it; Enter approves, Escape rejects, Ctrl+Enter approves for the
// session; the command is shown once; the tool row says it waits for approval.

const bash = (id: string, command: string) => ({ events: [{ tool_call: { id, name: 'Bash', args: { command } } }] });
const said = (text: string) => ({ events: [{ text }] });

/** Where the card is against the composer, whether it holds the focus, and how often `needle` is in it. */
const placeOf = (page: Page, needle: string) => page.evaluate((n) => {
  const card = document.querySelector('[role="group"][aria-label="Approval"]') as HTMLElement | null;
  const composer = document.querySelector('form.composer')!.getBoundingClientRect();
  if (!card) return null;
  const r = card.getBoundingClientRect();
  return {
    inLog: !!card.closest('.log'),
    aboveComposer: r.bottom <= composer.top + 1 && composer.top - r.bottom < 40,
    focused: card.contains(document.activeElement),
    mentions: (card.innerText.match(new RegExp(n.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'g')) ?? []).length,
  };
}, needle);

test('the approval is docked by the composer and focused: Enter approves, Escape rejects, Ctrl+Enter approves for the session', async (t) => {
  const { page, llm, shot, pageErrors } = await sessionJourney(t);
  const card = page.getByRole('group', { name: 'Approval' });
  const decisions: unknown[] = [];
  page.on('request', (r) => { if (r.method() === 'POST' && /\/approvals\/[^/]+$/.test(new URL(r.url()).pathname)) decisions.push(r.postDataJSON()); });

  // Enter: approved once.
  llm.setScript(bash('k1', 'echo docked-one'), said('Ran it.'));
  await sendPrompt(page, 'run one');
  await card.waitFor();
  const row = page.locator('.tool[data-tool="Bash"]').last();
  await row.locator('.tool-state', { hasText: 'waiting for approval' }).waitFor();
  const place = await placeOf(page, 'echo docked-one');
  t.deepEqual(place, { inLog: false, aboveComposer: true, focused: true, mentions: 1 }, 'docked above the composer, focused, the command once');
  t.regex(await card.innerText(), /run a command/i, 'says what it asks in words');
  await shot('docked');
  await page.keyboard.press('Enter');
  await card.waitFor({ state: 'detached' });
  await page.locator('.bubble.assistant', { hasText: 'Ran it.' }).waitFor();
  t.like(decisions.at(-1), { decision: 'approved' });
  t.is((decisions.at(-1) as { scope?: string }).scope, undefined);

  // Escape: rejected, the command does not run.
  llm.setScript(bash('k2', 'echo docked-two'), said('Left it.'));
  await sendPrompt(page, 'run two');
  await card.waitFor();
  await page.waitForFunction(() => document.querySelector('[role="group"][aria-label="Approval"]')?.contains(document.activeElement));
  await page.keyboard.press('Escape');
  await card.waitFor({ state: 'detached' });
  await page.locator('.bubble.assistant', { hasText: 'Left it.' }).waitFor();
  t.like(decisions.at(-1), { decision: 'rejected' });

  // Ctrl+Enter: approved for the session; the same call later runs without asking.
  llm.setScript(bash('k3', 'echo docked-three'), said('Ran three.'), bash('k4', 'echo docked-three'), said('Ran it again.'));
  await sendPrompt(page, 'run three');
  await card.waitFor();
  await page.waitForFunction(() => document.querySelector('[role="group"][aria-label="Approval"]')?.contains(document.activeElement));
  await page.keyboard.press('Control+Enter');
  await card.waitFor({ state: 'detached' });
  await page.locator('.bubble.assistant', { hasText: 'Ran three.' }).waitFor();
  t.like(decisions.at(-1), { decision: 'approved', scope: 'session' });
  await sendPrompt(page, 'run three again');
  await page.locator('.bubble.assistant', { hasText: 'Ran it again.' }).waitFor();
  t.is(decisions.length, 3, 'no approval asked the second time');
  t.deepEqual(pageErrors, []);
});
