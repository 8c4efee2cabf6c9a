import test from 'ava';
import { sendPrompt, sessionJourney } from './helpers.ts';

// Honest tool status (issue 29, must fix 5): a command that exits non-zero is failed, with its exit code; a
// rejected call is rejected, not an error; rows are compact ("Run `echo hi`") and open to the input and the
// output, which can be copied.

const bash = (id: string, command: string) => ({ events: [{ tool_call: { id, name: 'Bash', args: { command } } }] });
const said = (text: string) => ({ events: [{ text }] });

test('exit 3 is failed with its code; a rejected call is rejected; a row opens to its command and output, copied', async (t) => {
  const { page, llm, shot, pageErrors } = await sessionJourney(t, 'default_permission_mode = "yolo"');
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);

  // A command that fails: the row says failed and exit 3, in the failure colour, open on its output.
  llm.setScript(bash('f1', 'echo about-to-fail; exit 3'), said('It failed.'));
  await sendPrompt(page, 'run the failing one');
  await page.locator('.bubble.assistant', { hasText: 'It failed.' }).waitFor();
  const failed = page.locator('.tool[data-tool="Bash"]').last();
  t.is(await failed.getAttribute('data-status'), 'failed');
  t.regex(await failed.locator('.tool-state').innerText(), /exit 3/);
  t.regex(await failed.locator('.tool-head').innerText(), /Run\s+echo about-to-fail; exit 3/);
  await failed.locator('.tool-out', { hasText: 'about-to-fail' }).waitFor();
  await shot('failed-command');

  // A command that works: a compact row, closed, with its exit code and how long it ran; it opens to the
  // command and the output; copy. (It runs a second, so the page sees it running: the duration is watched.)
  llm.setScript(bash('ok1', 'sleep 1; echo all-good'), said('Done.'));
  await sendPrompt(page, 'run the good one');
  await page.locator('.bubble.assistant', { hasText: 'Done.' }).waitFor();
  const ok = page.locator('.tool[data-tool="Bash"]').last();
  t.is(await ok.getAttribute('data-status'), 'done');
  t.regex(await ok.locator('.tool-state').innerText(), /^exit 0 · \d+(\.\d)?s$/, 'the exit code and the duration');
  t.false(await ok.locator('.tool-out').isVisible().catch(() => false), 'closed: no output shown');
  const head = ok.getByRole('button', { name: /Run\s+sleep 1; echo all-good/ });
  t.is(await head.getAttribute('aria-expanded'), 'false');
  await head.click();
  t.is(await head.getAttribute('aria-expanded'), 'true');
  await ok.locator('.tool-out', { hasText: 'all-good' }).waitFor();
  await ok.getByRole('button', { name: 'Copy output' }).click();
  t.regex(await page.evaluate(() => navigator.clipboard.readText()), /all-good/);
  await ok.getByRole('button', { name: 'Copy output' }).getByText('Copied').waitFor();
  await shot('opened-row');

  // A rejected call (manual mode for this one): rejected, not an error.
  await page.getByLabel('Permission mode').selectOption('manual');
  llm.setScript(bash('r1', 'echo never-runs'), said('I will not.'));
  await sendPrompt(page, 'run the rejected one');
  await page.getByRole('group', { name: 'Approval' }).getByRole('button', { name: 'Reject' }).click();
  await page.locator('.bubble.assistant', { hasText: 'I will not.' }).waitFor();
  const rejected = page.locator('.tool[data-tool="Bash"]').last();
  t.is(await rejected.getAttribute('data-status'), 'rejected');
  t.is((await rejected.locator('.tool-state').innerText()).trim().toLowerCase(), 'rejected');
  const colours = await rejected.evaluate((el) => ({ state: getComputedStyle(el.querySelector('.tool-state')!).color, fail: getComputedStyle(document.querySelector('.tool[data-status="failed"] .tool-state')!).color }));
  t.not(colours.state, colours.fail, 'not drawn as a failure');
  await shot('rejected');
  t.deepEqual(pageErrors, []);
});
