import { useEffect, useRef, useState } from 'preact/hooks';
import { activityStatusOf, type SessionWork } from '../../../protocol/activity.ts';
import { api } from '../api.ts';

export type Workspace = { id: string; root: string; name: string };
export type SessionRow = {
  id: string; workspace: { id: string; cwd: string };
  meta: { title?: string | null; last_prompt?: string | null; archived?: boolean; updated_at?: number };
  activity: { status: string };
};

/**
 * The git branch of a workspace (null: detached, or not a repository; undefined until read), read apart from
 * the list (`include=git` on one row of it) so git never delays the sidebar's first paint. The daemon caches
 * it 60 s per folder.
 */
export function useBranch(workspaceId: string | undefined): string | null | undefined {
  const [branch, setBranch] = useState<{ ws: string; branch: string | null } | null>(null);
  useEffect(() => {
    if (!workspaceId) return;
    let live = true;
    api<{ items: Array<{ git?: { branch: string | null } }> }>('GET', `/api/v2/sessions?workspace.id=${encodeURIComponent(workspaceId)}&page_size=1&meta.archived=all&include=git`)
      .then((d) => { if (live) setBranch({ ws: workspaceId, branch: d.items[0]?.git?.branch ?? null }); })
      .catch((e) => console.warn('branch not read', e));
    return () => { live = false; };
  }, [workspaceId]);
  return branch && branch.ws === workspaceId ? branch.branch : undefined;
}
type Group = { workspace: { id: string }; sessions: SessionRow[]; total: number };
type GroupsPage = { groups: Group[]; total: number; has_more: boolean; next_page_token: string | null };
type FlatPage = { items: SessionRow[]; total: number; next_page_token: string | null };

/** Sessions shown per workspace before "Show more"; each click shows this many more. */
export const GROUP_PAGE = 10;
const MAX_PAGES = 50;

/** A workspace's sessions, flat (`workspace.id=`, paged by token), up to `limit`. */
async function workspaceRows(wsId: string, limit: number, filter: string): Promise<{ rows: SessionRow[]; total: number }> {
  const out: SessionRow[] = [];
  let token: string | null = null;
  let total = 0;
  for (let i = 0; i < MAX_PAGES && out.length < limit; i++) {
    const page: FlatPage = await api('GET', `/api/v2/sessions?workspace.id=${encodeURIComponent(wsId)}&page_size=${Math.min(100, limit - out.length)}${filter}${token ? `&page_token=${encodeURIComponent(token)}` : ''}`);
    out.push(...page.items);
    total = page.total;
    token = page.next_page_token;
    if (!token) break;
  }
  return { rows: out, total };
}

/** Every workspace's first GROUP_PAGE sessions (`view=by_workspace`, groups paged by token), and each one's total. */
async function groupedRows(filter: string): Promise<{ byWs: Record<string, SessionRow[]>; tot: Record<string, number> }> {
  const byWs: Record<string, SessionRow[]> = {};
  const tot: Record<string, number> = {};
  let token: string | null = null;
  for (let i = 0; i < MAX_PAGES; i++) {
    const page: GroupsPage = await api('GET', `/api/v2/sessions?view=by_workspace&group.page_size=${GROUP_PAGE}&page_size=100${filter}${token ? `&page_token=${encodeURIComponent(token)}` : ''}`);
    for (const g of page.groups) {
      byWs[g.workspace.id] = g.sessions;
      tot[g.workspace.id] = g.total;
    }
    token = page.next_page_token;
    if (!token) break;
  }
  return { byWs, tot };
}

/** Workspaces whose list was extended ("Show more") keep their length: read again flat, up to their limit. */
async function keepLengths(byWs: Record<string, SessionRow[]>, tot: Record<string, number>, limits: Record<string, number>, filter: string): Promise<void> {
  await Promise.all(Object.entries(limits).map(async ([id, limit]) => {
    if (limit <= GROUP_PAGE || (tot[id] ?? 0) <= GROUP_PAGE) return;
    const r = await workspaceRows(id, limit, filter);
    byWs[id] = r.rows;
    tot[id] = r.total;
  }));
}

/** One session's row from GET /api/v1/sessions/{id} (the v2 list has no id filter). */
async function rowOf(id: string): Promise<SessionRow | null> {
  try {
    const s = await api('GET', `/api/v1/sessions/${id}`);
    const status = activityStatusOf(s);
    const updated = Date.parse(s.updated_at ?? '');
    return {
      id: s.id, workspace: { id: s.workspace_id, cwd: s.metadata?.cwd ?? '' }, activity: { status },
      meta: { title: s.title, last_prompt: s.last_prompt ?? null, archived: s.archived, ...(Number.isFinite(updated) ? { updated_at: updated } : {}) },
    };
  } catch {
    return null;
  }
}

/** The rows with one session's status set; the same object when nothing changed. */
function withStatus(x: Record<string, SessionRow[]>, patch: (r: SessionRow) => SessionRow): Record<string, SessionRow[]> {
  let changed = false;
  const next: Record<string, SessionRow[]> = {};
  for (const [ws, list] of Object.entries(x)) {
    next[ws] = list.map(patch);
    changed ||= next[ws]!.some((r, i) => r !== list[i]);
  }
  return changed ? next : x;
}

/**
 * The sidebar's data: every workspace (GET /workspaces) and its sessions from the v2 list grouped by
 * workspace (`view=by_workspace`, paged by next_page_token), the first GROUP_PAGE of each; "Show more"
 * raises a workspace's limit and reads its sessions flat (`workspace.id=`, paged by token).
 */
export function useSessionList(active: string | null) {
  const [workspaces, setWorkspaces] = useState<Workspace[]>([]);
  const [rows, setRows] = useState<Record<string, SessionRow[]>>({});
  const [totals, setTotals] = useState<Record<string, number>>({});
  /** The first read is done: an empty list means no workspace yet (the welcome), not "not read yet". */
  const [loaded, setLoaded] = useState(false);
  const limits = useRef<Record<string, number>>({});
  const archived = useRef(false);
  const generation = useRef(0);
  /** The open session when it is not among the rows shown (beyond a workspace's page, opened by URL or search). */
  const [extra, setExtra] = useState<SessionRow | null>(null);
  const activeRef = useRef(active);
  activeRef.current = active;
  const shown = useRef<Record<string, SessionRow[]>>({});
  shown.current = rows;
  /** Statuses from frames, with the list read (generation) they came during: laid over that read's rows. */
  const live = useRef(new Map<string, { status: string; gen: number }>());

  const filter = () => (archived.current ? '&meta.archived=all' : '');

  async function load(): Promise<void> {
    const gen = ++generation.current;
    for (const [id, o] of live.current) if (o.gen < gen) live.current.delete(id);
    const ws = api<{ items: Workspace[] }>('GET', '/api/v1/workspaces');
    ws.catch(() => {}); // awaited below; a failure of the list first must not leave it unhandled
    const { byWs, tot } = await groupedRows(filter());
    await keepLengths(byWs, tot, limits.current, filter());
    const list = await ws;
    const open = activeRef.current;
    const missing = open && !Object.values(byWs).some((r) => r.some((x) => x.id === open)) ? await rowOf(open) : null;
    if (gen !== generation.current) return;
    // A status frame that came while the list was read is newer than the list.
    for (const r of Object.values(byWs).flat()) {
      const o = live.current.get(r.id);
      if (o) r.activity = { ...r.activity, status: o.status };
    }
    setWorkspaces(list.items);
    setRows(byWs);
    setTotals(tot);
    setExtra(missing);
    setLoaded(true);
  }

  useEffect(() => {
    if (!active || Object.values(shown.current).some((r) => r.some((x) => x.id === active))) return void setExtra(null);
    let live = true;
    void rowOf(active).then((r) => { if (live) setExtra(r); });
    return () => { live = false; };
  }, [active]);

  async function more(wsId: string): Promise<void> {
    const limit = Math.max(limits.current[wsId] ?? GROUP_PAGE, (rows[wsId] ?? []).length) + GROUP_PAGE * 2;
    limits.current[wsId] = limit;
    const r = await workspaceRows(wsId, limit, filter());
    setRows((x) => ({ ...x, [wsId]: r.rows }));
    setTotals((x) => ({ ...x, [wsId]: r.total }));
  }

  /**
   * A session's `event.session.status_changed` / `work_changed` frame (broadcast to every connection,
   * docs/websocket.md): its row's badge set from the frame's `pending_interaction`, `busy` and
   * `last_turn_reason` by the v2 list's rule (protocol/activity.ts); no list read.
   */
  function applyWork(sessionId: string, p: SessionWork): void {
    const status = activityStatusOf(p);
    live.current.set(sessionId, { status, gen: generation.current });
    const patch = (r: SessionRow): SessionRow => r.id === sessionId && r.activity.status !== status ? { ...r, activity: { ...r.activity, status } } : r;
    setRows((x) => withStatus(x, patch));
    setExtra((r) => r && patch(r));
  }

  const all = Object.values(rows).flat();
  if (extra && !all.some((r) => r.id === extra.id)) all.push(extra);
  return {
    workspaces, rows, totals, all, loaded, load, more, applyWork,
    setArchived(on: boolean) { archived.current = on; },
  };
}
