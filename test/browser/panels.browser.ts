import test from 'ava';
import { journey, newSessionInUi } from './helpers.ts';

// The side panels (docs/web-ui.md): the terminal (@xterm/xterm over the terminal_* frames, under the
// daemon's CSP), background tasks, MCP servers; the panel's tab and width kept in the GUI store.

test('the terminal: open one, type `echo hi`, see hi; 24-bit colour under the CSP; it survives a cut WebSocket', async (t) => {
  const { page, url, shot, pageErrors } = await journey(t);
  await page.goto(url);
  await newSessionInUi(page);
  await page.getByRole('button', { name: 'Files' }).click();
  await page.getByRole('tab', { name: 'Terminal' }).click();
  await page.getByRole('button', { name: 'New terminal' }).click();
  const term = page.locator('.xterm-host .xterm');
  await term.waitFor();
  const rows = page.locator('.xterm-host .xterm-rows');
  await page.waitForFunction(() => /\S/.test(document.querySelector('.xterm-host .xterm-rows')?.textContent ?? ''), undefined, { timeout: 15_000 });
  await term.click();
  await page.keyboard.type('echo hi-$((40+2))');
  await page.keyboard.press('Enter');
  // The shell's answer, not the echo of what was typed: hi-42 only appears once the shell ran it.
  await page.waitForFunction(() => (document.querySelector('.xterm-host .xterm-rows')?.textContent ?? '').includes('hi-42'), undefined, { timeout: 15_000 });
  t.regex((await rows.textContent()) ?? '', /hi-42/);
  await shot('terminal');

  // xterm's <style> elements carry the page's nonce, and they took effect (the rows got their theme colour).
  const styles = await page.evaluate(() => [...document.querySelectorAll('.xterm style')].map((s) => ({ nonce: (s as HTMLStyleElement).nonce, applied: !!(s as HTMLStyleElement).sheet })));
  t.true(styles.length >= 2, JSON.stringify(styles));
  t.true(styles.every((s) => s.nonce && s.applied), JSON.stringify(styles));
  // A 24-bit colour cell: xterm styles it with a style attribute (style-src-attr).
  await page.keyboard.type(String.raw`printf '\033[38;2;255;0;0mRED\033[0m\n'`);
  await page.keyboard.press('Enter');
  const red = page.locator('.xterm-rows span', { hasText: /^RED$/ });
  await red.waitFor({ timeout: 15_000 });
  t.is(await red.evaluate((el) => getComputedStyle(el).color), 'rgb(255, 0, 0)');

  // Cut the WebSocket: once back, the terminal attaches again from its offset; output typed after it shows once.
  await page.evaluate(() => (window as any).__svcSocket.drop());
  await page.locator('.conn.off').waitFor();
  await page.locator('.conn.on').waitFor({ timeout: 15_000 });
  await term.click();
  await page.keyboard.type('echo after-$((1+1))');
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => (document.querySelector('.xterm-host .xterm-rows')?.textContent ?? '').includes('after-2'), undefined, { timeout: 15_000 });
  const text = (await rows.textContent()) ?? '';
  t.is(text.split('hi-42').length - 1, 1, 'the earlier output is not replayed twice');
  await shot('terminal-reconnected');
  t.deepEqual(pageErrors, []);

  // The CSP still refuses an inline script and a <style> without the nonce (created around the stamp).
  const refused = await page.evaluate(async () => {
    const script = document.createElement('script');
    script.textContent = 'window.__inlineRan = true;';
    document.body.appendChild(script);
    const style = document.createElementNS('http://www.w3.org/1999/xhtml', 'style') as HTMLStyleElement;
    style.textContent = 'body { outline: 9px solid red; }';
    document.head.appendChild(style);
    await new Promise((r) => setTimeout(r, 100));
    return { ran: (window as any).__inlineRan === true, styled: getComputedStyle(document.body).outlineWidth === '9px' };
  });
  t.deepEqual(refused, { ran: false, styled: false });
  t.true(pageErrors.some((e) => /script-src/.test(e)), pageErrors.join('\n'));
  t.true(pageErrors.some((e) => /style-src/.test(e)), pageErrors.join('\n'));
});
