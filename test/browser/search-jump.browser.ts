import test from 'ava';
import type { Page } from 'playwright-core';
import { until } from '../helpers/wait.ts';
import { sessionJourney } from './helpers.ts';

// A search hit in an early turn of a long session (docs/web-ui.md, "Search"): the chat log is windowed, so
// the turn is two pages of older turns back and, once paged in, thousands of pixels above the view. The
// jump pages the turns in, scrolls the log to the turn's offset so the window renders it, marks and
// focuses it: the turn's article ends up inside the visible part of the log.

/** 110 turns: the first page (50) holds the newest, the hit's turn (the first) is two pages back. */
const N = 110;

/** Where the turn's article is against the log's visible part, whether it is marked and focused. */
const placeOf = (page: Page, turn: string) => page.evaluate((id) => {
  const el = document.querySelector(`article[data-turn-id="${CSS.escape(id)}"]`);
  if (!el) return null;
  const log = document.querySelector('.log')!.getBoundingClientRect();
  const r = el.getBoundingClientRect();
  return { inView: r.top >= log.top - 1 && r.top < log.bottom && r.bottom > log.top, hit: el.classList.contains('hit'), focused: document.activeElement === el };
}, turn);

test('a search hit in a turn two pages back brings that turn into view, from the session and from another', async (t) => {
  const { page, llm, shot, pageErrors, rest, sid, folder } = await sessionJourney(t);
  llm.setScript(...Array.from({ length: N }, (_, i) => ({ events: [{ text: `reply number ${i}, a line of text long enough to take some room in the chat.` }] })));
  for (let i = 0; i < N; i++) {
    const text = i === 0 ? 'needle-early in the very first prompt' : i === 30 ? 'needle-middle in the thirtieth' : `filler prompt number ${i}`;
    await rest('POST', `/api/v1/sessions/${sid}/prompts`, { content: [{ type: 'text', text }] });
  }
  await until(async () => {
    const p = await rest('GET', `/api/v1/sessions/${sid}/prompts`);
    return p.active === null && p.queued.length === 0;
  }, 110_000, 'the queued prompts all ran');
  for (const word of ['needle-early', 'needle-middle']) await until(async () => (await rest('POST', '/api/v1/search', { query: word })).items.length > 0, 15_000, `"${word}" indexed`);

  // The page opens on the newest turns; the first turn is not held.
  await page.reload();
  await page.locator('.bubble.user', { hasText: `filler prompt number ${N - 1}` }).waitFor();
  t.true(Number(await page.locator('.log').getAttribute('data-turns')) <= 55, 'one page of turns held');

  const box = page.getByLabel('Search sessions');
  const results = page.getByRole('list', { name: 'Search results' });
  const search = async (word: string) => {
    await box.fill(word);
    t.is(await box.inputValue(), word, 'the typing went to the search box');
    await box.press('Enter');
    // A message's hit (the session is also titled with its first prompt, a hit without a turn).
    const hit = results.locator('a[data-turn]', { hasText: word }).first();
    // On a timeout, say what the search box showed (the CI once waited 30 s for this hit under load).
    await hit.waitFor().catch(async (e: Error) => {
      const shown = await results.textContent({ timeout: 1000 }).catch(() => '(no results list)');
      throw new Error(`${e.message}\nthe box held "${await box.inputValue()}"; the results list: ${shown}`);
    });
    const turn = await hit.getAttribute('data-turn');
    t.truthy(turn, 'the hit names its turn');
    await hit.click();
    return turn!;
  };

  // From the session itself, scrolled to its bottom.
  const turn = await search('needle-early');
  await until(async () => (await placeOf(page, turn))?.inView === true, 20_000, 'the first turn in view');
  const place = await placeOf(page, turn);
  t.true(place!.hit, 'the turn is marked');
  t.true(place!.focused, 'the turn has the focus');
  t.regex(await page.locator(`article[data-turn-id="${turn}"]`).textContent() ?? '', /needle-early in the very first prompt/);
  t.true(Number(await page.locator('.log').getAttribute('data-turns')) >= N, 'the older pages were paged in');
  t.true(await page.locator('article.turn').count() < N, 'still windowed: not every turn rendered');
  await shot('jumped-in-session');

  // From another session: a hit in the middle of the session (a page back, neither end of the log) opens
  // the long session at that turn.
  const { id: wsId } = await rest('POST', '/api/v1/workspaces', { root: folder });
  const other = await rest<{ id: string }>('POST', '/api/v1/sessions', { workspace_id: wsId });
  await rest('POST', `/api/v1/sessions/${other.id}/profile`, { title: 'Somewhere else' });
  await page.locator('.sidebar li a', { hasText: 'Somewhere else' }).click();
  await page.waitForURL((u) => u.pathname === `/s/${other.id}`);
  // A session that opens while the user types in the search box leaves the focus there (the prompt took
  // it on every session change, and the CI once saw "needle-middle" typed into the prompt instead).
  await box.click();
  await page.goBack();
  await page.locator('.bubble.user', { hasText: `filler prompt number ${N - 1}` }).waitFor();
  await page.goForward();
  await page.waitForURL((u) => u.pathname === `/s/${other.id}`);
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 100))));
  t.true(await box.evaluate((el) => document.activeElement === el), 'the search box kept the focus');
  const middle = await search('needle-middle');
  await page.waitForURL((u) => u.pathname === `/s/${sid}`);
  await until(async () => (await placeOf(page, middle))?.inView === true, 20_000, 'the thirtieth turn in view after opening the session');
  t.true((await placeOf(page, middle))!.hit, 'marked');
  t.true(await page.locator('.log').evaluate((el) => el.scrollTop > 1000), 'scrolled well away from the top');
  t.regex(await page.locator(`article[data-turn-id="${middle}"]`).textContent() ?? '', /needle-middle/);
  await shot('jumped-from-another-session');
  t.deepEqual(pageErrors, []);
});
