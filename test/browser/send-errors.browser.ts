import test from 'ava';
import { scripts } from '../../fixtures/llm/index.ts';
import { sendPrompt, sessionJourney } from './helpers.ts';

// A failed send keeps the prompt (issue 29, must fix 3): the text stays in the composer until the daemon
// accepted it; the error is said in plain words, its details on demand; while the daemon cannot be reached
// the composer says so and does not send, and it recovers by itself, the banner cleared.

test('a failed send keeps the typed prompt and says why; offline disables sending and recovers by itself', async (t) => {
  const { page, llm, shot, pageErrors } = await sessionJourney(t);
  const prompt = page.getByLabel('Prompt');
  const send = page.getByRole('button', { name: 'Send' });

  // The daemon refuses the prompt (an internal error): the text stays, the error is readable, details on demand.
  const isPost = (u: URL) => u.pathname.endsWith('/prompts');
  await page.route(isPost, (route) => route.request().method() === 'POST'
    ? route.fulfill({ status: 500, contentType: 'application/json', body: JSON.stringify({ code: 50001, msg: 'internal error: journal write failed', data: null }) })
    : route.fallback());
  await sendPrompt(page, 'please keep this text');
  const alert = page.getByRole('alert').filter({ hasText: /couldn.t send/i });
  await alert.waitFor();
  t.is(await prompt.inputValue(), 'please keep this text', 'the prompt is still there');
  t.false(/50001/.test((await alert.innerText()) ?? ''), 'no bare code in the message');
  await alert.getByText('Details').click();
  await alert.getByText(/50001/).waitFor();
  await shot('send-failed');

  // The daemon is back: the same text goes out, and only then leaves the composer.
  await page.unroute(isPost);
  llm.setScript(scripts.helloText);
  await send.click();
  await page.locator('.bubble.user', { hasText: 'please keep this text' }).waitFor();
  await page.locator('.bubble.assistant', { hasText: 'Hello, world' }).waitFor();
  t.is(await prompt.inputValue(), '', 'cleared once accepted');
  await alert.waitFor({ state: 'detached' });

  // Offline: every request fails, every new WebSocket is refused, and the current one is cut.
  const api = (u: URL) => u.pathname.startsWith('/api/');
  await page.route(api, (route) => route.abort('internetdisconnected'));
  let offline = true;
  await page.routeWebSocket(/\/api\/v1\/ws$/, (ws) => {
    if (offline) return ws.close({ code: 1006 });
    ws.connectToServer();
  });
  await page.evaluate(() => (window as unknown as { __svcSocket: { drop(): void } }).__svcSocket.drop());
  const banner = page.getByRole('status').filter({ hasText: /offline|reconnect/i });
  await banner.waitFor({ timeout: 30_000 });
  t.true(await send.isDisabled(), 'Send is disabled while offline');
  await prompt.fill('typed while offline');
  await prompt.press('Enter');
  t.is(await prompt.inputValue(), 'typed while offline', 'Enter does not send (nor lose) it while offline');
  // An action that fails meanwhile says so in words.
  await page.getByRole('button', { name: 'Archive' }).click();
  await page.getByRole('alert').filter({ hasText: /reach/i }).waitFor();
  await shot('offline');

  // Back online: the banners go by themselves, Send works again.
  await page.unroute(api);
  offline = false;
  await banner.waitFor({ state: 'detached', timeout: 60_000 });
  await page.locator('.conn.on').waitFor();
  t.false(await send.isDisabled());
  llm.setScript(scripts.helloText);
  await prompt.press('Enter');
  await page.locator('.bubble.user', { hasText: 'typed while offline' }).waitFor();
  await page.locator('.bubble.assistant', { hasText: 'Hello, world' }).nth(1).waitFor();
  t.is(await page.getByRole('alert').count(), 0, 'no stale error banner');
  t.deepEqual(pageErrors, []);
});
