import test from 'ava';
import { execFileSync } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { scripts } from '../../fixtures/llm/index.ts';
import { until } from '../helpers/wait.ts';
import { TEST_TOKEN } from '../helpers/wire.ts';
import { sendPrompt, sessionJourney } from './helpers.ts';

// The "should have" part of issue 29: the Changes panel, code blocks with their language and a copy button,
// an answer's copy button and time on hover, the context use in the composer, search as you type with the term
// marked, stable session names and relative times, a working indicator with its elapsed time, one notice for an
// abort, archive warning about a running terminal, a refused token said so.

const git = (cwd: string, ...args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], { cwd, stdio: 'pipe' });

test('changes panel and branch; code copy; search as you type; stable names; working time; one abort notice; archive warning; refused token', async (t) => {
  const { page, llm, shot, pageErrors, folder, rest, sid, url } = await sessionJourney(t);
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);

  // A repository on branch "trunk": README.md committed then changed, notes.txt new.
  git(folder, 'init', '-q', '-b', 'trunk');
  git(folder, 'add', '.');
  git(folder, 'commit', '-q', '-m', 'first');
  await writeFile(path.join(folder, 'README.md'), '# demo\n\nA second paragraph.\n');
  await writeFile(path.join(folder, 'notes.txt'), 'remember the milk\n');

  // A code block: its language over it, and a copy button that copies the code.
  llm.setScript({ events: [{ text: 'Like this:\n\n```ts\nconst answer = 42;\n```\n\nDone.' }] });
  await sendPrompt(page, 'the first question');
  const code = page.locator('.bubble.assistant .codeblock');
  await code.waitFor();
  t.is((await code.locator('.code-head').innerText()).split('\n')[0]!.trim(), 'ts');
  await code.getByRole('button', { name: 'Copy code' }).click();
  t.is(await page.evaluate(() => navigator.clipboard.readText()), 'const answer = 42;');

  // The answer: shown on hover, its time and a copy button that copies the whole answer; the context use.
  const answered = page.locator('article.turn.completed').last();
  const tools = answered.locator('.msg-tools');
  await answered.locator('.bubble.assistant').hover();
  await until(async () => (await tools.evaluate((el) => getComputedStyle(el).opacity)) === '1', 30_000, 'the answer tools shown on hover');
  t.regex(await tools.locator('span[title]').innerText(), /\d/, 'the answer\'s time');
  await tools.getByRole('button', { name: 'Copy the answer' }).click();
  t.regex(await page.evaluate(() => navigator.clipboard.readText()), /^Like this:[\s\S]*const answer = 42;[\s\S]*Done\.$/);
  await page.locator('form.composer').getByLabel(/^Context \S+% used$/).waitFor({ timeout: 30_000 });

  // The second prompt does not rename the session: it keeps the first prompt's name until it has a title.
  llm.setScript(scripts.helloText);
  await sendPrompt(page, 'the second question');
  await page.locator('.bubble.assistant', { hasText: 'Hello, world' }).waitFor();
  const row = page.locator('.sidebar a[aria-current="page"]');
  await page.reload();
  await row.locator('.s-title', { hasText: 'the first question' }).waitFor();
  t.is(await row.locator('.s-time').innerText(), 'now', 'a relative time');

  // The Changes panel: the branch, each changed file with its diff (the bar's branch: first-run.browser.ts).
  await page.getByRole('button', { name: 'Panels' }).click();
  await page.getByRole('tab', { name: 'Changes' }).click();
  const changes = page.getByRole('region', { name: 'Changes' });
  await changes.getByText('trunk').waitFor();
  await changes.getByLabel('changes to README.md').locator('.add', { hasText: 'A second paragraph.' }).waitFor();
  await changes.getByLabel('changes to notes.txt').locator('.add', { hasText: 'remember the milk' }).waitFor();
  t.regex(await changes.locator('.file', { hasText: 'notes.txt' }).locator('.fc-status').innerText(), /^U$/);
  await shot('changes');
  await page.getByRole('button', { name: 'Close the side panel' }).click();

  // Search as you type: no Enter, the hit comes with the term marked.
  await page.getByLabel('Search sessions').pressSequentially('second', { delay: 30 });
  const hit = page.getByRole('list', { name: 'Search results' }).locator('a', { hasText: 'second' }).first();
  await hit.waitFor({ timeout: 30_000 });
  t.is((await hit.locator('mark').first().innerText()).toLowerCase(), 'second');
  await page.getByLabel('Search sessions').press('Escape');

  // A turn that hangs: the working indicator counts; Abort leaves one notice, not two.
  llm.setScript(scripts.hang);
  await sendPrompt(page, 'this will hang');
  await page.locator('.working', { hasText: /Working · \d+s/ }).waitFor();
  await page.getByRole('button', { name: 'Abort' }).click();
  const stopped = page.locator('article.turn.cancelled');
  await stopped.waitFor();
  await page.getByRole('button', { name: 'Abort' }).waitFor({ state: 'detached' });
  const notices = await page.locator('.log .notice').allInnerTexts();
  t.is(notices.filter((n) => /stop|interrupt|cancel|abort/i.test(n)).length, 1, notices.join(' | '));

  // Archive with a running terminal asks first; declined, the session stays.
  await rest('POST', `/api/v1/sessions/${sid}/terminals`, { cols: 80, rows: 24 });
  const asked: string[] = [];
  page.once('dialog', (d) => { asked.push(d.message()); void d.dismiss(); });
  await page.getByRole('button', { name: 'Archive' }).click();
  await until(() => asked.length > 0, 30_000, 'the warning');
  t.regex(asked[0] ?? '', /terminal/, 'warned about the terminal');
  t.false((await rest('GET', `/api/v1/sessions/${sid}`)).archived, 'not archived');

  // A wrong token: the token field says it was not accepted.
  await page.evaluate(() => localStorage.setItem('svc-code.token', 'wrong'));
  await page.goto(url.replace(/#.*/, ''));
  await page.getByRole('alert').filter({ hasText: /not accepted/ }).waitFor();
  await page.getByLabel('Access token').fill(TEST_TOKEN);
  await page.getByRole('button', { name: 'Connect' }).click();
  await page.locator('.conn.on').waitFor();
  t.deepEqual(pageErrors, []);
});
