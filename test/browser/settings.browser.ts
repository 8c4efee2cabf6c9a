import test from 'ava';
import { startOAuthFixture } from '../../fixtures/oauth/server.ts';
import { until } from '../helpers/wait.ts';
import { journey, restOf, sessionJourney } from './helpers.ts';

// Settings (providers, the default model, the managed provider's device login), `--web-title`, the GUI
// store keeping UI preferences across browsers, keyboard use (docs/web-ui.md).

test('--web-title in the title bar; settings: add a provider, pick the default model, device login; Escape closes', async (t) => {
  const oauth = await startOAuthFixture();
  t.teardown(() => oauth.close());
  const { page, url, llm, shot, pageErrors } = await journey(t, `default_permission_mode = "manual"\n[oauth]\nhost = "${oauth.url}"\npoll_unit_ms = 20\n`, ['--web-title', 'Team <box>']);
  const rest = restOf(url);
  await page.goto(url);
  await page.getByLabel('Workspace folder').waitFor();
  t.is(await page.title(), 'Team <box>');
  t.is(await page.locator('.brand .title').textContent(), 'Team <box>');

  await page.keyboard.press('Control+,');
  const dialog = page.getByRole('dialog', { name: 'Settings' });
  await dialog.waitFor();
  await dialog.locator('li[data-provider="fx"]').waitFor();

  // Add a provider; its model becomes an alias; make it the default.
  await dialog.getByRole('button', { name: 'Add provider' }).click();
  await dialog.getByLabel('Provider name').fill('second');
  await dialog.getByLabel('Provider type').selectOption('chat_compat');
  await dialog.getByLabel('Base URL').fill(`${llm.url}/v1`);
  await dialog.getByLabel('API key').fill('sk-second');
  await dialog.getByLabel('Model id').fill('m2');
  await dialog.getByRole('button', { name: 'Add', exact: true }).click();
  await dialog.locator('li[data-provider="second"]').waitFor();
  await dialog.getByLabel('Default model').selectOption('second/m2');
  await until(async () => (await rest('GET', '/api/v1/config')).default_model === 'second/m2', 10_000, 'the default model set');
  await shot('settings');

  // Device login of the managed provider: the code shown, approved at the provider, signed in.
  await dialog.getByRole('button', { name: 'Sign in (device code)' }).click();
  const code = dialog.locator('.device-code code');
  await code.waitFor({ timeout: 15_000 });
  const userCode = (await code.textContent())!;
  t.regex(userCode, /\S/);
  await shot('device-login');
  oauth.approve(userCode);
  await dialog.getByText('Login authenticated').waitFor({ timeout: 15_000 });
  await dialog.locator('section[aria-label="Managed provider"] .badge.authenticated').waitFor({ timeout: 15_000 });

  await page.keyboard.press('Escape');
  await dialog.waitFor({ state: 'detached' });
  t.deepEqual(pageErrors, []);
});

test('preferences (theme, the side panel, its tab and width) live in the GUI store and follow to a fresh browser; keyboard', async (t) => {
  const { page, url, browser, shot, pageErrors, rest } = await sessionJourney(t);
  const sessionUrl = page.url();
  const before = await page.evaluate(() => document.documentElement.dataset.theme);
  t.is(before, 'dark');

  // Focus order: the search box, then the workspace field; Ctrl+K reaches the search box.
  await page.keyboard.press('Control+k');
  await page.keyboard.press('Tab');
  t.is(await page.evaluate(() => document.activeElement?.getAttribute('aria-label')), 'Workspace folder');

  await page.keyboard.press('Control+Shift+L');
  await page.waitForFunction(() => document.documentElement.dataset.theme === 'light');
  await page.keyboard.press('Control+`');
  const tabs = page.getByRole('tablist', { name: 'Panels' });
  await tabs.getByRole('tab', { name: 'Terminal', selected: true }).waitFor();
  // Arrow keys move between the tabs.
  await tabs.getByRole('tab', { name: 'Terminal' }).focus();
  await page.keyboard.press('ArrowRight');
  await tabs.getByRole('tab', { name: 'Tasks', selected: true }).waitFor();
  // Drag the panel 100 px wider.
  const handle = page.getByRole('separator', { name: 'Resize the side panel' });
  const box = (await handle.boundingBox())!;
  await page.mouse.move(box.x + box.width / 2, box.y + 200);
  await page.mouse.down();
  await page.mouse.move(box.x + box.width / 2 - 100, box.y + 200, { steps: 5 });
  await page.mouse.up();
  const dock = page.getByRole('complementary', { name: 'Side panel' });
  await until(async () => Math.round((await dock.boundingBox())!.width) === 480, 5_000, 'the panel 480 px wide');
  await shot('light-panels');

  const item = async (key: string) => (await rest('GET', `/api/v1/gui/store/getItem?key=${encodeURIComponent(key)}`)).value;
  await until(async () => (await item('svc-code.panel.width')) === '480', 5_000, 'the width stored');
  t.is(await item('svc-code.theme'), 'light');
  t.is(await item('svc-code.panel.tab'), 'tasks');
  t.is(await item('svc-code.panel.open'), '1');

  // Another browser (no localStorage): the same theme, panel, tab and width, from the GUI store.
  const other = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
  other.on('pageerror', (e) => pageErrors.push(String(e)));
  const token = new URL(url).hash;
  await other.goto(sessionUrl + token);
  await other.waitForFunction(() => document.documentElement.dataset.theme === 'light');
  const otherDock = other.getByRole('complementary', { name: 'Side panel' });
  await other.getByRole('tablist', { name: 'Panels' }).getByRole('tab', { name: 'Tasks', selected: true }).waitFor();
  await until(async () => Math.round((await otherDock.boundingBox())?.width ?? 0) === 480, 5_000, 'the stored width');

  // Escape in the panel closes it.
  await other.getByRole('tab', { name: 'Tasks' }).focus();
  await other.keyboard.press('Escape');
  await otherDock.waitFor({ state: 'detached' });
  await until(async () => (await item('svc-code.panel.open')) === '0', 5_000, 'closed, stored');
  t.deepEqual(pageErrors, []);
});
