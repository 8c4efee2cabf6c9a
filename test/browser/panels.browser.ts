import test from 'ava';
import { scripts } from '../../fixtures/llm/index.ts';
import { startHttpMcp } from '../../fixtures/mcp/servers.mjs';
import { until } from '../helpers/wait.ts';
import { sessionJourney, sendPrompt } from './helpers.ts';

// The side panels (docs/web-ui.md): the terminal (@xterm/xterm over the terminal_* frames, under the
// daemon's CSP), background tasks, MCP servers; the panel's tab and width kept in the GUI store.

test('the terminal: open one, type `echo hi`, see hi; 24-bit colour under the CSP; it survives a cut WebSocket', async (t) => {
  const { page, shot, pageErrors } = await sessionJourney(t);
  await page.getByRole('button', { name: 'Panels' }).click();
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

  // Close: the shell is hung up, the tab says so, the close button goes.
  await page.getByRole('button', { name: 'Close terminal' }).click();
  await page.getByRole('tab', { name: '1 (exited)' }).waitFor({ timeout: 15_000 });
  await page.getByRole('button', { name: 'Close terminal' }).waitFor({ state: 'detached' });
});

test('background tasks: a running task listed live, its output, cancel; MCP servers: add one, test it, remove it', async (t) => {
  const mcp = await startHttpMcp({ name: 'fx-http' });
  t.teardown(() => mcp.close());
  const { page, llm, shot, pageErrors } = await sessionJourney(t, 'default_permission_mode = "yolo"');
  await page.getByRole('button', { name: 'Panels' }).click();
  await page.getByRole('tab', { name: 'Tasks' }).click();
  const tasks = page.getByRole('region', { name: 'Background tasks' });
  await tasks.getByText('No background tasks in this session.').waitFor();

  llm.setScript({ events: [{ tool_call: { id: 'bg1', name: 'Bash', args: { command: 'echo started-bg; sleep 60', description: 'a long sleep', run_in_background: true } } }] }, scripts.helloText);
  await sendPrompt(page, 'start a background job');
  const task = tasks.locator('li.task', { hasText: 'a long sleep' });
  await task.locator('.badge.running').waitFor({ timeout: 15_000 });
  await until(async () => {
    await task.getByRole('button', { name: 'Output' }).click();
    return /started-bg/.test((await task.getByLabel('Task output').textContent()) ?? '');
  }, 10_000, 'the task output');
  await shot('tasks');
  await task.getByRole('button', { name: 'Cancel' }).click();
  await task.locator('.badge.cancelled').waitFor({ timeout: 15_000 });

  // MCP: add an http server through the form, test it (its tools), remove it.
  await page.getByRole('tab', { name: 'MCP' }).click();
  const panel = page.getByRole('region', { name: 'MCP servers' });
  await panel.getByText('No MCP server configured.').waitFor();
  await panel.getByRole('button', { name: 'Add server' }).click();
  await panel.getByLabel('Server name').fill('fx');
  await panel.getByLabel('Transport').selectOption('http');
  await panel.getByLabel('URL').fill(mcp.url);
  await panel.getByRole('button', { name: 'Save' }).click();
  const row = panel.locator('li.mcp[data-server="fx"]');
  await row.waitFor();
  await row.getByRole('button', { name: 'Test' }).click();
  await row.getByLabel('Test result').getByText(/^OK/).waitFor({ timeout: 20_000 });
  await shot('mcp');
  page.once('dialog', (d) => void d.accept());
  await row.getByRole('button', { name: 'Remove fx' }).click();
  await row.waitFor({ state: 'detached' });
  t.deepEqual(pageErrors, []);
});
