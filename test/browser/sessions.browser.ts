import test from 'ava';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { scripts } from '../../fixtures/llm/index.ts';
import { sessionJourney, sendPrompt } from './helpers.ts';

// Session management and turn control in the browser: abort, a failed turn's error, rename, archive and
// restore, delete, the theme toggle.

test('abort a running turn; a failed turn shows its error', async (t) => {
  const { page, llm, shot, pageErrors } = await sessionJourney(t);

  llm.setScript(scripts.hang);
  await sendPrompt(page, 'this will hang');
  const abort = page.getByRole('button', { name: 'Abort' });
  await abort.waitFor();
  await shot('running');
  await abort.click();
  await page.locator('article.turn.cancelled').waitFor();
  await abort.waitFor({ state: 'detached' });
  await shot('aborted');

  llm.setScript(scripts.badRequest);
  await sendPrompt(page, 'this will fail');
  const alert = page.locator('article.turn').last().getByRole('alert').first();
  await alert.waitFor({ timeout: 30_000 });
  t.regex((await alert.textContent()) ?? '', /\S/);
  // Readable: not red text on a red ground (the error banner's style once applied to every ".error").
  const colours = await alert.evaluate((el) => ({ bg: getComputedStyle(el).backgroundColor, fg: getComputedStyle(el).color }));
  t.not(colours.fg, colours.bg, JSON.stringify(colours));
  await shot('failed');
  t.deepEqual(pageErrors, []);
});

test('rename, archive and restore, delete a session; switch the theme', async (t) => {
  const { page, llm, shot, pageErrors } = await sessionJourney(t);
  llm.setScript(scripts.helloText);
  await sendPrompt(page, 'first prompt');
  await page.locator('.bubble.assistant', { hasText: 'Hello, world' }).waitFor();

  await page.getByRole('button', { name: 'Rename' }).click();
  await page.getByLabel('Session title').fill('My demo');
  await page.getByRole('button', { name: 'Save' }).click();
  const row = page.locator('.sidebar a', { hasText: 'My demo' });
  await row.waitFor();
  await shot('renamed');

  await page.getByRole('button', { name: 'Archive' }).click();
  await row.waitFor({ state: 'detached' });
  await page.getByLabel('Show archived').check();
  await page.locator('.sidebar a', { hasText: 'My demo' }).locator('.badge.archived').waitFor();
  await shot('archived');
  await page.getByRole('button', { name: 'Restore' }).click();
  await page.locator('.sidebar a', { hasText: 'My demo' }).locator('.badge.archived').waitFor({ state: 'detached' });

  page.once('dialog', (d) => void d.accept());
  await page.getByRole('button', { name: 'Delete' }).click();
  await page.waitForURL((u) => u.pathname === '/');
  await page.locator('.sidebar a', { hasText: 'My demo' }).waitFor({ state: 'detached' });
  await shot('deleted');

  const theme = await page.evaluate(() => document.documentElement.dataset.theme);
  t.truthy(theme);
  await page.getByRole('button', { name: 'Toggle theme' }).click();
  await page.waitForFunction((before) => document.documentElement.dataset.theme !== before, theme);
  await shot('theme');
  await page.reload();
  await page.getByLabel('Workspace folder').waitFor();
  await page.waitForFunction((before) => document.documentElement.dataset.theme !== before, theme);
  t.pass('the theme is kept across a reload');
  t.deepEqual(pageErrors, []);
});

test('the file panel: the session folder as a tree, a file opened in the preview', async (t) => {
  const { page, shot, pageErrors, folder } = await sessionJourney(t);
  await mkdir(path.join(folder, 'src'));
  await writeFile(path.join(folder, 'src', 'main.ts'), 'export const answer = 42;\n');
  await page.getByRole('button', { name: 'Panels' }).click();
  const files = page.getByRole('complementary', { name: 'Files' });
  await files.getByRole('button', { name: 'README.md' }).waitFor();
  await files.getByRole('button', { name: 'src' }).click();
  await files.getByRole('button', { name: 'main.ts' }).click();
  const preview = page.getByRole('region', { name: 'File preview' });
  await preview.locator('pre', { hasText: 'export const answer = 42;' }).waitFor();
  await shot('file-preview');
  await page.reload();
  await page.getByRole('complementary', { name: 'Files' }).getByRole('button', { name: 'README.md' }).waitFor();
  t.deepEqual(pageErrors, []);
});

test('the search box finds a message of another session and opens it', async (t) => {
  const { page, llm, shot, pageErrors } = await sessionJourney(t);
  llm.setScript(scripts.helloText);
  await sendPrompt(page, 'where is the quokka configuration');
  await page.locator('.bubble.assistant', { hasText: 'Hello, world' }).waitFor();
  const first = new URL(page.url()).pathname;
  await page.getByRole('button', { name: /^New session in / }).first().click();
  await page.waitForURL((u) => u.pathname !== first && /^\/s\/[^/]+$/.test(u.pathname));

  // An index still being built (a start, a rebuild) answers what it has and says so: the box says so too and
  // asks again by itself until the index is ready.
  let building = true;
  await page.route('**/api/v1/search', async (route) => {
    if (!building) return route.continue();
    const index_state = { state: 'building', indexed_sessions: 0, total_sessions: 2, documents: 0 };
    await route.fulfill({ contentType: 'application/json', body: JSON.stringify({ code: 0, msg: 'ok', data: { items: [], has_more: false, index_state, source: 'index' } }) });
  });
  await page.getByLabel('Search sessions').fill('quokka');
  await page.getByLabel('Search sessions').press('Enter');
  const results = page.getByRole('list', { name: 'Search results' });
  await results.getByRole('status').filter({ hasText: 'Still indexing' }).waitFor();
  t.is(await results.getByText('No matches').count(), 0, 'no "No matches" while the index is incomplete');
  building = false;
  // The message's hit (the session is also titled with its first prompt, a hit of its own).
  const hit = results.locator('a[data-turn]', { hasText: 'quokka' });
  await hit.waitFor();
  await results.getByRole('status').waitFor({ state: 'detached' });
  await shot('search');
  await hit.click();
  await page.waitForURL((u) => u.pathname === first);
  await page.locator('.bubble', { hasText: 'where is the quokka configuration' }).waitFor();
  await page.getByLabel('Search sessions').fill('nothingmatchesthis');
  await page.getByLabel('Search sessions').press('Enter');
  await page.getByRole('list', { name: 'Search results' }).getByText('No matches').waitFor();
  t.deepEqual(pageErrors, []);
});
