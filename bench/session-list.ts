import { startDaemon } from './lib/daemon.ts';
import { ApiClient, timeRequests } from './lib/http.ts';
import { runBench } from './lib/lifecycle.ts';
import { populate } from './lib/populate.ts';
import { intEnv, progress } from './lib/report.ts';
import { summarize } from './lib/stats.ts';

const SESSIONS = intEnv('BENCH_SESSIONS', 10_000);
const REQUESTS = intEnv('BENCH_REQUESTS', 300);
const WORKSPACES = 20;
const TARGET_V2_P50_MS = 5;
/** How far down the default v2 list the deep page starts (in rows), followed through page_token. */
const DEEP_ROWS = Math.floor(SESSIONS * 0.75);

runBench('session-list', 5 * 60_000, async (scope) => {
  const home = await scope.tempDir('home');
  const dirs = await scope.workspaceDirs(await scope.tempDir('roots'), WORKSPACES);
  const daemon = await startDaemon(scope, home);
  const client = new ApiClient(daemon.baseUrl, undefined, 1);
  scope.defer(() => client.close());
  progress(`populating ${SESSIONS} sessions over ${WORKSPACES} workspaces, every 10th archived`);
  const writer = new ApiClient(daemon.baseUrl);
  const pop = await populate(writer, { count: SESSIONS, dirs, archiveEvery: 10 }).finally(() => writer.close());
  progress(`  done in ${pop.ms} ms`);

  // Follow next_page_token down the default list to the deep page.
  let token: string | null = null;
  let rows = 0;
  while (rows < DEEP_ROWS) {
    const page: any = await client.ok('GET', `/api/v2/sessions?page_size=50${token ? `&page_token=${token}` : ''}`);
    rows += page.items.length;
    token = page.next_page_token;
    if (!token) throw new Error(`v2 list ended after ${rows} rows, before row ${DEEP_ROWS}`);
  }
  const deepToken = token!;
  const ws = encodeURIComponent(pop.workspaceIds[0]);
  const cases: Record<string, string> = {
    v2_first_page: '/api/v2/sessions?page_size=50',
    v2_deep_page: `/api/v2/sessions?page_size=50&page_token=${deepToken}`,
    v2_workspace_filter: `/api/v2/sessions?page_size=50&workspace.id=${ws}`,
    v2_by_workspace: '/api/v2/sessions?view=by_workspace&page_size=20',
    v1_first_page: '/api/v1/sessions?page_size=50',
  };
  const results: Record<string, unknown> = {};
  for (const [name, path] of Object.entries(cases)) {
    const sample: any = await client.ok('GET', path);
    const rowsServed = (sample.items ?? sample.groups ?? []).length;
    if (rowsServed === 0) throw new Error(`${name} served no rows: ${JSON.stringify(sample).slice(0, 300)}`);
    progress(`timing ${name}: ${REQUESTS} sequential requests`);
    results[name] = { path: path.replace(deepToken, '<token after row ' + DEEP_ROWS + '>'), ...summarize(await timeRequests(client, REQUESTS, () => path)) };
  }
  const v2 = results.v2_first_page as { p50: number };
  return {
    description: 'GET list pages, one request in flight, keep-alive, against a spawned daemon holding the sessions',
    target: { v2_first_page_p50_ms: TARGET_V2_P50_MS },
    sessions: SESSIONS,
    archived: pop.archived,
    workspaces: pop.workspaceIds.length,
    results,
    pass: v2.p50 < TARGET_V2_P50_MS,
  };
});
