import test from 'ava';
import { execFileSync } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { journey } from './helpers.ts';

// The dark theme's scrollbars and the empty states (issue 29, must fix 6): `color-scheme` follows the theme;
// a first run says what to do; a new session shows its folder, branch and model with the focus in the
// prompt; with workspaces but no session open, no stale "Add a workspace".

const git = (cwd: string, ...args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], { cwd, stdio: 'pipe' });

test('color-scheme follows the theme; a first-run welcome; a new session shows folder, branch and model, the prompt focused', async (t) => {
  const { page, url, shot, pageErrors } = await journey(t);
  await page.goto(url);

  // First run: no workspace yet. A welcome that says what to do, with the way to do it.
  const welcome = page.getByRole('region', { name: 'Welcome' });
  await welcome.waitFor();
  t.regex(await welcome.innerText(), /folder/i, 'it says to pick a project folder');
  await welcome.getByRole('button', { name: /choose a folder/i }).waitFor();
  const scheme = () => page.evaluate(() => getComputedStyle(document.documentElement).colorScheme);
  t.is(await page.evaluate(() => document.documentElement.dataset.theme), 'dark');
  t.is(await scheme(), 'dark', 'dark scrollbars and form controls');
  await shot('welcome-dark');
  await page.keyboard.press('Control+Shift+L');
  await page.waitForFunction(() => document.documentElement.dataset.theme === 'light');
  t.is(await scheme(), 'light');
  await page.keyboard.press('Control+Shift+L');
  await page.waitForFunction(() => document.documentElement.dataset.theme === 'dark');

  // A git repository on branch "trunk" becomes a workspace; a new session in it.
  const folder = await mkdtemp(path.join(os.tmpdir(), 'webui-first-'));
  await writeFile(path.join(folder, 'README.md'), '# first\n');
  git(folder, 'init', '-q', '-b', 'trunk');
  git(folder, 'add', '.');
  git(folder, 'commit', '-q', '-m', 'first');
  await page.getByLabel('Workspace folder').fill(folder);
  await page.getByRole('button', { name: 'Add', exact: true }).click();
  await page.getByRole('button', { name: `New session in ${path.basename(folder)}` }).click();
  await page.waitForURL(/\/s\/[^/]+$/);
  const intro = page.getByRole('region', { name: 'New session' });
  await intro.waitFor();
  await intro.getByText(folder).waitFor();
  await intro.getByText('trunk').waitFor();
  await intro.getByText('fx/model').waitFor();
  await page.locator('.session-bar .chip.branch', { hasText: 'trunk' }).waitFor();
  await page.waitForFunction(() => document.activeElement?.getAttribute('aria-label') === 'Prompt');
  await shot('new-session');

  // Back to no session open: workspaces exist, so the text points at them, not at adding one.
  await page.goto(url.replace(/#.*/, ''));
  await page.locator('.workspace').first().waitFor();
  const main = page.locator('main.chat');
  await main.getByText(/start a new session|pick a session/i).first().waitFor();
  t.false(/add a workspace/i.test(await main.innerText()), 'no stale "Add a workspace"');
  await shot('no-session');
  t.deepEqual(pageErrors, []);
});
