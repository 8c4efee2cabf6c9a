import test from 'ava';
import type { Page, Route } from 'playwright-core';
import { journey } from './helpers.ts';

// The search box against an index that is not ready (docs/web-ui.md, "Search"): a failed build is shown
// with a Retry and no longer asked again every second; the last page of "More results" ends "Still indexing".
// The index states are answered by a route (a real daemon's build cannot be made to fail from here;
// test/search/build-failure.test.ts checks the daemon's side).

const indexState = (failed: boolean) => ({ state: 'building', indexed_sessions: 1, total_sessions: 2, documents: 1, ...(failed ? { failed: true } : {}) });
const hit = (n: number) => ({ session_id: `s${n}`, session_title: `Session ${n}`, role: 'user', snippet: `quokka number ${n}`, time: 0, turn: `t${n}` });

function answer(route: Route, data: Record<string, unknown>) {
  return route.fulfill({ contentType: 'application/json', body: JSON.stringify({ code: 0, msg: 'ok', data: { source: 'index', ...data } }) });
}

async function searchFor(page: Page, query: string) {
  await page.getByLabel('Search sessions').fill(query);
  await page.getByLabel('Search sessions').press('Enter');
  return page.getByRole('list', { name: 'Search results' });
}

test('a failed index build: the error with a Retry, no polling; Retry asks again', async (t) => {
  const { page, url, shot, pageErrors } = await journey(t);
  await page.goto(url);
  let asked = 0;
  let failed = true;
  await page.route('**/api/v1/search', async (route) => {
    asked++;
    if (!failed) return route.continue();
    await answer(route, { items: [], has_more: false, index_state: indexState(true) });
  });
  const results = await searchFor(page, 'quokka');
  const alert = results.getByRole('alert').filter({ hasText: 'could not be built' });
  await alert.waitFor();
  t.is(await results.getByRole('status').count(), 0, 'not "Still indexing"');
  t.is(await results.getByText('No matches').count(), 0, 'not "No matches": the index is incomplete');
  await shot('build-failed');
  const afterFirst = asked;
  // The box asked again every second while the build was reported running: wait out three of those.
  await page.waitForTimeout(3000);
  t.is(asked, afterFirst, 'no poll after a failed build');

  failed = false;
  await alert.getByRole('button', { name: 'Retry' }).click();
  await results.getByText('No matches').waitFor();
  t.is(await results.getByRole('alert').count(), 0, 'the error is gone once the index answers');
  t.is(asked, afterFirst + 1, 'Retry asked once');
  t.deepEqual(pageErrors, []);
});

test('"More results" bringing the last page of a building index clears "Still indexing"', async (t) => {
  const { page, url, pageErrors } = await journey(t);
  await page.goto(url);
  await page.route('**/api/v1/search', async (route) => {
    const more = (route.request().postDataJSON() as { page_token?: string }).page_token !== undefined;
    await answer(route, more
      ? { items: [hit(2)], has_more: false, index_state: indexState(false) }
      : { items: [hit(1)], has_more: true, page_token: 'p2', index_state: indexState(false) });
  });
  const results = await searchFor(page, 'quokka');
  const status = results.getByRole('status').filter({ hasText: 'Still indexing' });
  await status.waitFor();
  await results.getByRole('button', { name: 'More results' }).click();
  await results.getByText('quokka number 2').waitFor();
  await status.waitFor({ state: 'detached', timeout: 5000 });
  t.is(await results.getByRole('button', { name: 'More results' }).count(), 0);
  t.deepEqual(pageErrors, []);
});
