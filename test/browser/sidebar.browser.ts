import test from 'ava';
import { mkdir, mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { scripts } from '../../fixtures/llm/index.ts';
import { until } from '../helpers/wait.ts';
import { journey, restOf, sessionJourney } from './helpers.ts';

// The sidebar (docs/web-ui.md): a new session in a folder chosen with the fs:browse picker, the v2 list
// grouped by workspace and paged, live busy / approval / question badges, search paged over page tokens
// and a hit that scrolls to its turn.

test('the folder picker starts a session in a chosen folder; a workspace pages its sessions 10 at a time', async (t) => {
  const { page, url, shot, pageErrors } = await journey(t);
  const rest = restOf(url);
  const parent = await mkdtemp(path.join(os.tmpdir(), 'webui-pick-'));
  await mkdir(path.join(parent, 'alpha'));
  await mkdir(path.join(parent, 'beta-project'));
  await page.goto(url);
  await page.getByLabel('Workspace folder').waitFor();

  // Ctrl+Shift+O opens the picker (so does "Browse…"); a typed path, then a click into a sub-folder.
  await page.keyboard.press('Control+Shift+O');
  const picker = page.getByRole('dialog', { name: 'Choose a folder' });
  await picker.getByRole('list', { name: 'Folders' }).locator('li').first().waitFor();
  await picker.getByLabel('Folder path').fill(parent);
  await picker.getByLabel('Folder path').press('Enter');
  await picker.getByRole('button', { name: 'beta-project' }).click();
  await until(async () => (await picker.getByLabel('Folder path').inputValue()) === path.join(parent, 'beta-project'), 10_000, 'the sub-folder opened');
  await picker.getByRole('button', { name: '..' }).waitFor();
  await shot('folder-picker');
  await picker.getByRole('button', { name: 'Start session here' }).click();
  await page.waitForURL(/\/s\/[^/]+$/);
  await picker.waitFor({ state: 'detached' });
  const ws = page.getByRole('region', { name: 'Workspace beta-project' });
  await ws.locator('li').first().waitFor();
  const workspaces = await rest<{ items: Array<{ id: string; root: string }> }>('GET', '/api/v1/workspaces');
  const w = workspaces.items.find((x) => x.root === path.join(parent, 'beta-project'));
  t.truthy(w, 'the chosen folder became a workspace');

  // Escape closes the picker.
  await page.getByRole('button', { name: 'Browse…' }).click();
  await picker.waitFor();
  await page.keyboard.press('Escape');
  await picker.waitFor({ state: 'detached' });

  // 14 sessions: 10 shown, then "Show 4 more".
  for (let i = 0; i < 13; i++) await rest('POST', '/api/v1/sessions', { workspace_id: w!.id });
  await until(async () => (await ws.locator('li').count()) === 10, 10_000, '10 sessions listed');
  const more = ws.getByRole('button', { name: 'Show 4 more' });
  await more.waitFor();
  await shot('paged');
  await more.click();
  await until(async () => (await ws.locator('li').count()) === 14, 10_000, 'all 14 listed');
  await more.waitFor({ state: 'detached' });
  t.deepEqual(pageErrors, []);
});

test('busy, approval and question badges of another session appear live; search pages and a hit scrolls to its turn', async (t) => {
  const { page, llm, shot, pageErrors, rest, folder, sid: viewing } = await sessionJourney(t);
  const { id: wsId } = await rest('POST', '/api/v1/workspaces', { root: folder });
  const other = await rest<{ id: string }>('POST', '/api/v1/sessions', { workspace_id: wsId });
  await rest('POST', `/api/v1/sessions/${other.id}/profile`, { title: 'Other session' });
  const row = page.locator('.sidebar li', { hasText: 'Other session' });
  await row.waitFor();
  // The badges come from the status frames the daemon broadcasts to every connection: from here to the end
  // of the badge checks every read of the session list fails, so neither a poll nor a refetch can show them.
  let listReads = 0;
  const isList = (u: URL) => u.pathname === '/api/v2/sessions';
  await page.route(isList, (r) => { listReads++; return r.abort(); });

  // A turn running in the other session: its row shows it busy while we look at ours.
  llm.setScript(scripts.hang);
  await rest('POST', `/api/v1/sessions/${other.id}/prompts`, { content: [{ type: 'text', text: 'a long one' }] });
  await row.locator('.badge.running').waitFor({ timeout: 15_000 });
  await rest('POST', `/api/v1/sessions/${other.id}:abort`);
  await row.locator('.badge.running').waitFor({ state: 'detached', timeout: 15_000 });

  // A tool call waiting for approval in the other session: its row says so while we look at ours.
  llm.setScript({ events: [{ tool_call: { id: 'b1', name: 'Bash', args: { command: 'echo badge' } } }] }, scripts.helloText);
  await rest('POST', `/api/v1/sessions/${other.id}/prompts`, { content: [{ type: 'text', text: 'needle-alpha first prompt' }] });
  await row.locator('.badge.approval').waitFor({ timeout: 15_000 });
  t.is(new URL(page.url()).pathname, `/s/${viewing}`);
  await shot('approval-badge');
  const transcript = await rest('GET', `/api/v1/sessions/${other.id}/transcript?agent_id=main`);
  const interaction = (transcript.interactions ?? []).find((i: any) => i.status === 'pending' || i.state === 'pending') ?? transcript.interactions?.[0];
  t.truthy(interaction, JSON.stringify(transcript).slice(0, 500));
  await rest('POST', `/api/v1/sessions/${other.id}/approvals/${interaction.interactionId}`, { decision: 'approved' });
  await row.locator('.badge.approval').waitFor({ state: 'detached', timeout: 15_000 });

  // A question.
  llm.setScript({ events: [{ tool_call: { id: 'q1', name: 'AskUserQuestion', args: { questions: [{ question: 'Which?', header: 'Pick', options: [{ label: 'A' }, { label: 'B' }] }] } } }] }, scripts.helloText);
  await rest('POST', `/api/v1/sessions/${other.id}/prompts`, { content: [{ type: 'text', text: 'second prompt' }] });
  await row.locator('.badge.question').waitFor({ timeout: 15_000 });
  await shot('question-badge');
  await rest('POST', `/api/v1/sessions/${other.id}:abort`);
  await row.locator('.badge.question').waitFor({ state: 'detached', timeout: 15_000 });
  await page.unroute(isList);
  t.log(`list reads refused during the badge checks: ${listReads}`);

  // Search: 25 titled sessions page 20 then 5 more; a hit in a turn opens the session at that turn.
  for (let i = 0; i < 24; i++) {
    const s = await rest<{ id: string }>('POST', '/api/v1/sessions', { workspace_id: wsId });
    await rest('POST', `/api/v1/sessions/${s.id}/profile`, { title: `zebra number ${i}` });
  }
  const box = page.getByLabel('Search sessions');
  await page.keyboard.press('Control+k');
  t.true(await box.evaluate((el) => el === document.activeElement), 'Ctrl+K focuses the search box');
  await box.fill('zebra');
  await box.press('Enter');
  const results = page.getByRole('list', { name: 'Search results' });
  await until(async () => (await results.locator('a').count()) === 20, 15_000, 'a first page of 20 hits');
  await results.getByRole('button', { name: 'More results' }).click();
  await until(async () => (await results.locator('a').count()) === 24, 15_000, 'the next page');
  await results.getByRole('button', { name: 'More results' }).waitFor({ state: 'detached' });
  await shot('search-paged');
  await box.press('Escape');
  await results.waitFor({ state: 'detached' });

  await box.fill('needle-alpha');
  await box.press('Enter');
  const hit = results.locator('a', { hasText: 'needle-alpha' }).first();
  await hit.waitFor();
  const turn = await hit.getAttribute('data-turn');
  t.truthy(turn, 'the hit names its turn');
  await hit.click();
  await page.waitForURL((u) => u.pathname === `/s/${other.id}`);
  const target = page.locator(`article.turn.hit[data-turn-id="${turn}"]`);
  await target.waitFor();
  t.regex((await target.textContent()) ?? '', /needle-alpha first prompt/);
  // Beyond the sidebar's first page, the open session still has its bar (title, archive).
  await page.locator('.session-bar .s-name', { hasText: 'Other session' }).waitFor();
  await page.locator('.session-bar').getByRole('button', { name: 'Archive' }).waitFor();
  await shot('search-hit');
  t.deepEqual(pageErrors, []);
});
