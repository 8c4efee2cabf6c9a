import test from 'ava';
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { connectWs, TEST_TOKEN } from '../helpers/wire.ts';
import { journey, restOf, sendPrompt, sessionJourney } from './helpers.ts';

// What a turn's text looks like once it is no longer streaming (issue 29): the words the model writes before a
// tool call stay, live and after a reload; a page opened while a reply streams shows the words already written.

const norm = (s: string | null) => (s ?? '').replace(/\s+/g, ' ').trim();

/** A promise the test resolves: the fixture LLM holds its stream until then. */
function gate(): { until: Promise<void>; open: () => void } {
  let open!: () => void;
  const p = new Promise<void>((ok) => (open = ok));
  return { until: p, open };
}

test('the text before a tool call stays once the step is done, and after a reload', async (t) => {
  const { page, llm, pageErrors } = await sessionJourney(t, 'default_permission_mode = "yolo"');
  // The provider names its call `f1`: the id the step's first text frame has too.
  llm.setScript(
    { events: [{ text: 'Let me check ' }, { text: 'the file.' }, { tool_call: { id: 'f1', name: 'Bash', args: { command: 'echo checked' } } }] },
    { events: [{ text: 'It is fine.' }] },
  );
  await sendPrompt(page, 'check the file');
  await page.locator('.bubble.assistant', { hasText: 'It is fine.' }).waitFor();
  await page.locator('article.turn.completed').waitFor();
  const turn = page.locator('article.turn').first();
  const texts = async () => (await turn.locator('.bubble.assistant').allTextContents()).map(norm);
  t.deepEqual(await texts(), ['Let me check the file.', 'It is fine.'], 'the text before the call, once the step is done');
  t.is(await turn.locator('.tool[data-tool="Bash"]').count(), 1);
  await page.reload();
  await page.locator('.bubble.assistant', { hasText: 'It is fine.' }).waitFor();
  t.deepEqual(await texts(), ['Let me check the file.', 'It is fine.'], 'and after a reload');
  t.is(await turn.locator('.tool[data-tool="Bash"]').count(), 1);
  t.deepEqual(pageErrors, []);
});

test('a page opened while a reply streams shows the words already written', async (t) => {
  const { llm, url, browser, pageErrors } = await journey(t);
  const rest = restOf(url);
  const origin = new URL(url).origin;
  const dir = await mkdtemp(path.join(os.tmpdir(), 'webui-project-'));
  const ws = await rest<{ id: string }>('POST', '/api/v1/workspaces', { root: dir });
  const s = await rest<{ id: string }>('POST', '/api/v1/sessions', { workspace_id: ws.id });
  // No page follows the session while the reply starts (only the v1 event stream, which keeps no transcript):
  // the reply is held after its first words until the test lets it go.
  const events = await connectWs(origin, [`svc-code.bearer.${TEST_TOKEN}`]);
  t.teardown(() => events.close());
  await events.request('subscribe', { session_ids: [s.id] });
  const held = gate();
  t.teardown(() => held.open());
  llm.setScript({ events: [{ text: 'Alpha ' }, { text: 'beta ' }, { text: 'gamma ' }, { text: 'delta.' }], hold: [{ after: 3, until: held.until }] });
  await rest('POST', `/api/v1/sessions/${s.id}/prompts`, { content: [{ type: 'text', text: 'stream' }] });
  await events.waitFor((f) => f.volatile === true && JSON.stringify(f.payload ?? {}).includes('beta'), 30_000);

  const page = await browser.newPage();
  page.on('pageerror', (e) => pageErrors.push(String(e)));
  await page.goto(url);
  await page.goto(`${origin}/s/${s.id}`);
  await page.locator('article.turn.running').waitFor();
  // The words written before the page came, while the reply is still held: not only once the frame completes.
  await page.locator('.bubble.assistant', { hasText: 'Alpha beta' }).waitFor({ timeout: 30_000 });
  t.is(norm(await page.locator('.bubble.assistant').textContent()), 'Alpha beta');
  held.open();
  await page.locator('article.turn.completed').waitFor();
  t.is(norm(await page.locator('.bubble.assistant').textContent()), 'Alpha beta gamma delta.', 'then the rest, no word lost or doubled');
  t.deepEqual(pageErrors, []);
});
