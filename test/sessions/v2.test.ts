import test, { type ExecutionContext } from 'ava';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { git } from '../helpers/fs.ts';
import { serverFor, type TestServer } from '../helpers/server.ts';

type Params = Record<string, string | number | boolean | (string | number)[]>;

/** Creation order of the fixture sessions, by workspace key: first/last per workspace differ. */
const ORDER = ['a', 'b', 'c', 'a', 'b', 'a', 'b', 'a', 'c'] as const;
const BRANCH = 'feature/list-v2';

interface Fixture {
  s: TestServer;
  dirs: Record<'a' | 'b' | 'c', string>;
  ws: Record<'a' | 'b' | 'c', string>;
  /** Session ids in creation order. */
  ids: string[];
  byWs: Record<'a' | 'b' | 'c', string[]>;
}

async function setup(t: ExecutionContext): Promise<Fixture> {
  const s = await serverFor(t);
  const root = await mkdtemp(path.join(os.tmpdir(), 'svc-v2-list-'));
  t.teardown(() => rm(root, { recursive: true, force: true }));
  const dirs = { a: path.join(root, 'alpha'), b: path.join(root, 'beta'), c: path.join(root, 'gamma') };
  for (const d of Object.values(dirs)) await mkdir(d);
  git(dirs.a, 'init', '-q', '-b', BRANCH);
  git(dirs.a, 'commit', '-q', '--allow-empty', '-m', 'first');
  const ids: string[] = [];
  const ws = {} as Fixture['ws'];
  const byWs: Fixture['byWs'] = { a: [], b: [], c: [] };
  for (const [i, k] of ORDER.entries()) {
    const r = await s.post('/api/v1/sessions', { metadata: { cwd: dirs[k] }, title: `s${i}` });
    if (r.code !== 0) throw new Error(`create failed: ${JSON.stringify(r)}`);
    ids.push(r.data.id);
    byWs[k].push(r.data.id);
    ws[k] = r.data.workspace_id;
  }
  return { s, dirs, ws, ids, byWs };
}

function qs(p: Params): string {
  const u = new URLSearchParams();
  for (const [k, v] of Object.entries(p)) for (const x of Array.isArray(v) ? v : [v]) u.append(k, String(x));
  const q = u.toString();
  return q ? `?${q}` : '';
}

const list = (s: TestServer, p: Params = {}) => s.get(`/api/v2/sessions${qs(p)}`);
const ids = (items: { id: string }[]) => items.map((i) => i.id);
const fields = (body: { details?: { field: string }[] }) => (body.details ?? []).map((d) => d.field).sort();

/** Follows next_page_token to the end; returns every page's data. */
async function allPages(s: TestServer, p: Params) {
  const pages: any[] = [];
  let token: string | null | undefined;
  do {
    const r = await list(s, token ? { ...p, page_token: token } : p);
    if (r.code !== 0) throw new Error(`page failed: ${JSON.stringify(r)}`);
    pages.push(r.data);
    token = r.data.next_page_token;
  } while (token && pages.length < 50);
  return pages;
}

test('default list: item shape, newest updated first, total, no token on the last page', async (t) => {
  const f = await setup(t);
  const r = await list(f.s);
  t.is(r.code, 0);
  t.deepEqual(ids(r.data.items), [...f.ids].reverse());
  t.is(r.data.total, 9);
  t.is(r.data.has_more, false);
  t.is(r.data.next_page_token, null);
  const item = r.data.items.find((i: any) => i.id === f.ids[0]);
  t.deepEqual(Object.keys(item).sort(), ['activity', 'id', 'meta', 'workspace']);
  t.deepEqual(item.workspace, { id: f.ws.a, cwd: f.dirs.a });
  t.is(item.meta.title, 's0');
  t.is(item.meta.last_prompt, null);
  t.is(typeof item.meta.created_at, 'number');
  t.is(item.meta.updated_at, item.meta.created_at);
  t.is(item.meta.archived, false);
  t.is(item.meta.archived_at, null);
  t.deepEqual(item.activity, { status: 'idle', model: null });
  const v1 = await f.s.get(`/api/v1/sessions/${f.ids[0]}`);
  t.is(item.meta.created_at, Date.parse(v1.data.created_at));
});

test('three sorts; updated sorts follow profile updates, created_desc does not', async (t) => {
  const f = await setup(t);
  t.deepEqual(ids((await list(f.s, { sort: 'meta.updated_at_asc' })).data.items), f.ids);
  t.deepEqual(ids((await list(f.s, { sort: 'meta.created_at_desc' })).data.items), [...f.ids].reverse());
  const upd = await f.s.post(`/api/v1/sessions/${f.ids[0]}/profile`, { title: 'renamed' });
  t.is(upd.code, 0);
  const desc = ids((await list(f.s, { sort: 'meta.updated_at_desc' })).data.items);
  t.is(desc[0], f.ids[0]);
  const asc = ids((await list(f.s, { sort: 'meta.updated_at_asc' })).data.items);
  t.is(asc.at(-1), f.ids[0]);
  t.deepEqual(ids((await list(f.s, { sort: 'meta.created_at_desc' })).data.items), [...f.ids].reverse());
  t.is((await list(f.s, { sort: 'meta.title_asc' })).code, 40001);
});

test('filters: workspace.id, activity.status, has_prompt, updated range', async (t) => {
  const f = await setup(t);
  const a = await list(f.s, { 'workspace.id': f.ws.a });
  t.deepEqual(ids(a.data.items), [...f.byWs.a].reverse());
  t.is(a.data.total, 4);
  const bc = await list(f.s, { 'workspace.id': [f.ws.b, f.ws.c] });
  t.is(bc.data.total, 5);
  t.true(bc.data.items.every((i: any) => i.workspace.id !== f.ws.a));
  const unknown = await list(f.s, { 'workspace.id': 'wd_nope_000000000000' });
  t.is(unknown.code, 0);
  t.is(unknown.data.total, 0);
  t.deepEqual(unknown.data.items, []);
  t.is((await list(f.s, { 'workspace.id': f.dirs.c })).data.total, 2, 'a root path works as an alias');

  t.is((await list(f.s, { 'activity.status': 'idle' })).data.total, 9);
  t.is((await list(f.s, { 'activity.status': ['running', 'failed'] })).data.total, 0);
  t.is((await list(f.s, { 'activity.status': ['running', 'idle'] })).data.items.length, 9);
  t.is((await list(f.s, { 'meta.has_prompt': true })).data.total, 0);
  t.is((await list(f.s, { 'meta.has_prompt': false })).data.total, 9);

  const all = (await list(f.s)).data.items;
  const mid = all[4].meta.updated_at;
  const after = await list(f.s, { 'meta.updated_after': mid });
  t.is(after.data.total, all.filter((i: any) => i.meta.updated_at > mid).length);
  t.true(after.data.items.every((i: any) => i.meta.updated_at > mid));
  const before = await list(f.s, { 'meta.updated_before': mid });
  t.is(before.data.total, all.filter((i: any) => i.meta.updated_at < mid).length);
  t.is((await list(f.s, { 'meta.updated_after': mid - 1, 'meta.updated_before': mid + 1 })).data.total,
    all.filter((i: any) => i.meta.updated_at === mid).length);

  const bad = await list(f.s, { 'activity.status': 'sleeping', 'meta.archived': 'maybe', 'meta.updated_after': 'soon' });
  t.is(bad.code, 40001);
  t.deepEqual(fields(bad), ['activity.status.0', 'meta.archived', 'meta.updated_after'], 'repeatable params name the bad repetition');
});

test('page_token walks every page once, with total on each; filters apply across pages', async (t) => {
  const f = await setup(t);
  for (const sort of ['meta.updated_at_desc', 'meta.updated_at_asc', 'meta.created_at_desc']) {
    const pages = await allPages(f.s, { page_size: 2, sort });
    t.is(pages.length, 5);
    t.true(pages.every((p) => p.total === 9));
    t.true(pages.slice(0, -1).every((p) => p.has_more && typeof p.next_page_token === 'string'));
    t.is(pages.at(-1).next_page_token, null);
    const seen = pages.flatMap((p) => ids(p.items));
    t.deepEqual(seen, sort === 'meta.updated_at_asc' ? f.ids : [...f.ids].reverse());
  }
  const pagesA = await allPages(f.s, { page_size: 3, 'workspace.id': f.ws.a });
  t.deepEqual(pagesA.flatMap((p) => ids(p.items)), [...f.byWs.a].reverse());
  t.true(pagesA.every((p) => p.total === 4));
});

test('pages do not shift when sessions are created or updated mid-walk', async (t) => {
  const f = await setup(t);
  const first = await list(f.s, { page_size: 3 });
  const fresh = await f.s.post('/api/v1/sessions', { metadata: { cwd: f.dirs.b } });
  t.is(fresh.code, 0);
  const lastServed = first.data.items[2].id;
  t.is((await f.s.post(`/api/v1/sessions/${lastServed}/profile`, { title: 'moved to the top' })).code, 0);
  const rest = await allPages(f.s, { page_size: 3 });
  t.is(rest[0].total, 10);
  let token = first.data.next_page_token;
  const seen = ids(first.data.items);
  while (token) {
    const r = await list(f.s, { page_size: 3, page_token: token });
    seen.push(...ids(r.data.items));
    token = r.data.next_page_token;
  }
  t.deepEqual(seen, [...f.ids].reverse(), 'no duplicates, no gaps; the newer rows sort before the position');
});

test('page_token mismatch 40922, malformed 40001, page and page_token exclusive', async (t) => {
  const f = await setup(t);
  const p = { page_size: 2, 'meta.archived': 'all' };
  const token = (await list(f.s, p)).data.next_page_token;
  t.is(typeof token, 'string');
  t.is((await list(f.s, { ...p, page_token: token })).code, 0);
  t.is((await list(f.s, { ...p, page_size: 4, page_token: token })).code, 0, 'page_size may change between pages');
  const changes: Params[] = [{ sort: 'meta.updated_at_asc' }, { 'meta.archived': 'false' }, { 'workspace.id': f.ws.a },
    { fields: 'id,archived' }, { include: 'git' }, { view: 'by_workspace' }, { 'activity.status': 'idle' }];
  for (const change of changes) {
    const r = await list(f.s, { ...p, ...change, page_token: token });
    t.is(r.code, 40922, JSON.stringify(change));
  }
  const malformed = await list(f.s, { ...p, page_token: 'not*a*token' });
  t.is(malformed.code, 40001);
  t.deepEqual(fields(malformed), ['page_token']);
  t.is((await list(f.s, { ...p, page_token: Buffer.from('{"v":2}').toString('base64url') })).code, 40001);
  const both = await list(f.s, { ...p, page: 1, page_token: token });
  t.is(both.code, 40001);
  t.deepEqual(fields(both), ['page', 'page_token']);
});

test('page mode: stateless snapshots, never a token', async (t) => {
  const f = await setup(t);
  const reversed = [...f.ids].reverse();
  for (const page of [1, 2, 3]) {
    const r = await list(f.s, { page, page_size: 4 });
    t.deepEqual(ids(r.data.items), reversed.slice((page - 1) * 4, page * 4));
    t.is(r.data.next_page_token, null);
    t.is(r.data.total, 9);
    t.is(r.data.has_more, page < 3);
  }
  t.deepEqual((await list(f.s, { page: 9, page_size: 4 })).data.items, []);
  t.is((await list(f.s, { page: 0 })).code, 40001);
});

test('fields=id,archived trims items and unlocks page_size up to 10000', async (t) => {
  const f = await setup(t);
  const r = await list(f.s, { fields: 'id,archived', page_size: 10000 });
  t.is(r.code, 0);
  t.is(r.data.items.length, 9);
  t.true(r.data.items.every((i: any) => Object.keys(i).sort().join() === 'archived,id' && i.archived === false));
  t.is((await list(f.s, { fields: 'archived,id' })).code, 0);
  const big = await list(f.s, { page_size: 10000 });
  t.is(big.code, 40001);
  t.deepEqual(fields(big), ['page_size']);
  t.is((await list(f.s, { page_size: 101 })).code, 40001);
  t.is((await list(f.s, { page_size: 100 })).code, 0);
  t.is((await list(f.s, { fields: 'id,archived', page_size: 10001 })).code, 40001);
  t.deepEqual(fields(await list(f.s, { fields: 'id' })), ['fields']);
  t.deepEqual(fields(await list(f.s, { fields: 'id,title' })), ['fields']);
  const withGit = await list(f.s, { fields: 'id,archived', include: 'git' });
  t.is(withGit.code, 40001);
  t.deepEqual(fields(withGit), ['fields']);
  t.deepEqual(fields(await list(f.s, { include: 'git,usage' })), ['include']);
});

test('group.page_size: only with by_workspace; over 100 only with the projection', async (t) => {
  const f = await setup(t);
  const flat = await list(f.s, { 'group.page_size': 2 });
  t.is(flat.code, 40001);
  t.deepEqual(fields(flat), ['group.page_size']);
  t.is((await list(f.s, { view: 'by_workspace', 'group.page_size': 101 })).code, 40001);
  t.is((await list(f.s, { view: 'by_workspace', 'group.page_size': 0 })).code, 40001);
  const projected = await list(f.s, { view: 'by_workspace', 'group.page_size': 10000, fields: 'id,archived' });
  t.is(projected.code, 0);
  t.deepEqual(projected.data.groups[0].sessions[0], { id: f.ids[8], archived: false });
  t.is((await list(f.s, { view: 'grid' })).code, 40001);
});

test('by_workspace: groups ordered by first session, sessions capped, totals, paging', async (t) => {
  const f = await setup(t);
  const r = await list(f.s, { view: 'by_workspace' });
  t.is(r.code, 0);
  t.deepEqual(Object.keys(r.data).sort(), ['groups', 'has_more', 'next_page_token', 'total']);
  t.is(r.data.total, 3);
  t.deepEqual(r.data.groups.map((g: any) => g.workspace.id), [f.ws.c, f.ws.a, f.ws.b]);
  t.deepEqual(r.data.groups.map((g: any) => g.total), [2, 4, 3]);
  const groupA = r.data.groups[1];
  t.is(groupA.workspace.root, f.dirs.a);
  t.deepEqual(ids(groupA.sessions), [...f.byWs.a].reverse());
  t.is(groupA.sessions[0].meta.title, 's7');

  const asc = await list(f.s, { view: 'by_workspace', sort: 'meta.updated_at_asc', 'group.page_size': 2 });
  t.deepEqual(asc.data.groups.map((g: any) => g.workspace.id), [f.ws.a, f.ws.b, f.ws.c]);
  t.deepEqual(ids(asc.data.groups[0].sessions), f.byWs.a.slice(0, 2));
  t.is(asc.data.groups[0].total, 4);

  const p = { view: 'by_workspace', page_size: 2, 'group.page_size': 1 };
  const pages = await allPages(f.s, p);
  t.is(pages.length, 2);
  t.deepEqual(pages.flatMap((pg) => pg.groups.map((g: any) => g.workspace.id)), [f.ws.c, f.ws.a, f.ws.b]);
  t.true(pages[0].has_more);
  t.is(pages[1].next_page_token, null);
  t.true(pages.every((pg) => pg.total === 3));
  const token = pages[0].next_page_token;
  t.is((await list(f.s, { ...p, 'group.page_size': 3, page_token: token })).code, 40922);
  t.is((await list(f.s, { view: 'flat', page_size: 2, page_token: token })).code, 40922);

  const onlyB = await list(f.s, { view: 'by_workspace', 'workspace.id': f.ws.b });
  t.deepEqual(onlyB.data.groups.map((g: any) => g.workspace.id), [f.ws.b]);
  const none = await list(f.s, { view: 'by_workspace', 'meta.archived': 'true' });
  t.deepEqual(none.data, { groups: [], total: 0, has_more: false, next_page_token: null });
  const paged = await list(f.s, { view: 'by_workspace', page: 2, page_size: 2 });
  t.deepEqual(paged.data.groups.map((g: any) => g.workspace.id), [f.ws.b]);
  t.is(paged.data.next_page_token, null);
});

test('include=git: branch on the repository, nulls elsewhere', async (t) => {
  const f = await setup(t);
  const r = await list(f.s, { include: 'git' });
  t.is(r.code, 0);
  for (const item of r.data.items) {
    if (item.workspace.id === f.ws.a) {
      t.is(item.git.branch, BRANCH);
      t.is(item.git.detached, false);
      t.is(item.git.dirty, false);
      t.is(item.git.pull_request, null);
    } else {
      t.deepEqual(item.git, { branch: null, detached: null, upstream: null, ahead: null, behind: null, dirty: null, pull_request: null });
    }
  }
  const grouped = await list(f.s, { view: 'by_workspace', include: 'git' });
  const groupA = grouped.data.groups.find((g: any) => g.workspace.id === f.ws.a);
  t.true(groupA.sessions.every((i: any) => i.git.branch === BRANCH));
  t.false('git' in (await list(f.s)).data.items[0]);
});

test('batch archive/restore: input order, duplicates collapse, unknown ids, list visibility', async (t) => {
  const f = await setup(t);
  const [s0, s1, s2] = f.ids;
  const r = await f.s.post('/api/v2/sessions:archive', { ids: [s1, s0, s1, 'session_unknown', s2, s0] });
  t.is(r.code, 0);
  t.deepEqual(r.data.results.map((x: any) => x.id), [s1, s0, 'session_unknown', s2]);
  t.deepEqual(r.data.results[2], { id: 'session_unknown', ok: false, error: { code: 40401, message: r.data.results[2].error.message } });
  t.true([0, 1, 3].every((i) => r.data.results[i].ok === true));
  t.is(r.data.succeeded, 3);
  t.is(r.data.failed, 1);

  const visible = await list(f.s);
  t.is(visible.data.total, 6);
  t.false(ids(visible.data.items).some((id) => [s0, s1, s2].includes(id)));
  const archived = await list(f.s, { 'meta.archived': 'true' });
  t.deepEqual(ids(archived.data.items).sort(), [s0, s1, s2].sort());
  t.is(archived.data.total, 3);
  t.true(archived.data.items.every((i: any) => i.meta.archived && typeof i.meta.archived_at === 'number'));
  t.is((await list(f.s, { 'meta.archived': 'all' })).data.total, 9);
  t.is((await list(f.s, { 'meta.archived': 'true', 'workspace.id': f.ws.a })).data.total, 1);

  const again = await f.s.post('/api/v2/sessions:archive', { ids: [s0] });
  t.deepEqual(again.data, { results: [{ id: s0, ok: true }], succeeded: 1, failed: 0 });
  const restored = await f.s.post('/api/v2/sessions:restore', { ids: [s2, 'session_gone', s1] });
  t.deepEqual(restored.data.results.map((x: any) => [x.id, x.ok]), [[s2, true], ['session_gone', false], [s1, true]]);
  t.is(restored.data.results[1].error.code, 40401);
  t.deepEqual(ids((await list(f.s, { 'meta.archived': 'true' })).data.items), [s0]);
  t.is((await list(f.s)).data.total, 8);
});

test('batch body validation: empty, missing, over 5000 unique ids', async (t) => {
  const f = await setup(t);
  for (const body of [{ ids: [] }, {}, { ids: 'x' }, { ids: [''] }]) {
    const r = await f.s.post('/api/v2/sessions:archive', body);
    t.is(r.code, 40001, JSON.stringify(body));
  }
  const tooMany = Array.from({ length: 5001 }, (_, i) => `session_x${i}`);
  const over = await f.s.post('/api/v2/sessions:restore', { ids: tooMany });
  t.is(over.code, 40001);
  t.deepEqual(fields(over), ['ids']);
  const dupes = [...Array.from({ length: 6000 }, () => f.ids[0]), f.ids[1]];
  const collapsed = await f.s.post('/api/v2/sessions:archive', { ids: dupes });
  t.is(collapsed.code, 0);
  t.deepEqual(collapsed.data.results.map((x: any) => x.id), [f.ids[0], f.ids[1]]);
  const max = await f.s.post('/api/v2/sessions:archive', { ids: tooMany.slice(0, 5000) });
  t.is(max.code, 0);
  t.is(max.data.failed, 5000);
  t.is((await f.s.post('/api/v2/sessions:unarchive', { ids: [f.ids[0]] })).code, 40001);
});

test('sessions whose workspace was unregistered are not listed', async (t) => {
  const f = await setup(t);
  t.is((await f.s.req('DELETE', `/api/v1/workspaces/${f.ws.c}`)).body.code, 0);
  const r = await list(f.s);
  t.is(r.data.total, 7);
  t.false(r.data.items.some((i: any) => i.workspace.id === f.ws.c));
  t.is((await list(f.s, { 'workspace.id': f.ws.c })).data.total, 0);
  t.is((await list(f.s, { 'meta.has_prompt': false })).data.total, 7);
  t.is((await list(f.s, { view: 'by_workspace' })).data.total, 2);
});
