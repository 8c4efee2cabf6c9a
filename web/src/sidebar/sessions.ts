import { useEffect, useRef, useState } from 'preact/hooks';
import { api } from '../api.ts';

export type Workspace = { id: string; root: string; name: string };
export type SessionRow = { id: string; workspace: { id: string; cwd: string }; meta: { title?: string | null; last_prompt?: string | null; archived?: boolean; updated_at?: number }; activity: { status: string } };
type Group = { workspace: { id: string }; sessions: SessionRow[]; total: number };
type GroupsPage = { groups: Group[]; total: number; has_more: boolean; next_page_token: string | null };
type FlatPage = { items: SessionRow[]; total: number; next_page_token: string | null };

/** Sessions shown per workspace before "Show more"; each click shows this many more. */
export const GROUP_PAGE = 10;
const MAX_PAGES = 50;

/**
 * The sidebar's data: every workspace (GET /workspaces) and its sessions from the v2 list grouped by
 * workspace (`view=by_workspace`, paged by next_page_token), the first GROUP_PAGE of each; "Show more"
 * raises a workspace's limit and reads its sessions flat (`workspace.id=`, paged by token).
 */
export function useSessionList(active: string | null) {
  const [workspaces, setWorkspaces] = useState<Workspace[]>([]);
  const [rows, setRows] = useState<Record<string, SessionRow[]>>({});
  const [totals, setTotals] = useState<Record<string, number>>({});
  const limits = useRef<Record<string, number>>({});
  const archived = useRef(false);
  const generation = useRef(0);
  /** The open session when it is not among the rows shown (beyond a workspace's page, opened by URL or search). */
  const [extra, setExtra] = useState<SessionRow | null>(null);
  const activeRef = useRef(active);
  activeRef.current = active;
  const shown = useRef<Record<string, SessionRow[]>>({});
  shown.current = rows;

  const filter = () => (archived.current ? '&meta.archived=all' : '');

  async function workspaceRows(wsId: string, limit: number): Promise<{ rows: SessionRow[]; total: number }> {
    const out: SessionRow[] = [];
    let token: string | null = null;
    let total = 0;
    for (let i = 0; i < MAX_PAGES && out.length < limit; i++) {
      const page: FlatPage = await api('GET', `/api/v2/sessions?workspace.id=${encodeURIComponent(wsId)}&page_size=${Math.min(100, limit - out.length)}${filter()}${token ? `&page_token=${encodeURIComponent(token)}` : ''}`);
      out.push(...page.items);
      total = page.total;
      token = page.next_page_token;
      if (!token) break;
    }
    return { rows: out, total };
  }

  async function load(): Promise<void> {
    const gen = ++generation.current;
    const ws = api<{ items: Workspace[] }>('GET', '/api/v1/workspaces');
    ws.catch(() => {}); // awaited below; a failure of the list first must not leave it unhandled
    const byWs: Record<string, SessionRow[]> = {};
    const tot: Record<string, number> = {};
    let token: string | null = null;
    for (let i = 0; i < MAX_PAGES; i++) {
      const page: GroupsPage = await api('GET', `/api/v2/sessions?view=by_workspace&group.page_size=${GROUP_PAGE}&page_size=100${filter()}${token ? `&page_token=${encodeURIComponent(token)}` : ''}`);
      for (const g of page.groups) {
        byWs[g.workspace.id] = g.sessions;
        tot[g.workspace.id] = g.total;
      }
      token = page.next_page_token;
      if (!token) break;
    }
    // Workspaces whose list was extended keep their length.
    await Promise.all(Object.entries(limits.current).map(async ([id, limit]) => {
      if (limit <= GROUP_PAGE || (tot[id] ?? 0) <= GROUP_PAGE) return;
      const r = await workspaceRows(id, limit);
      byWs[id] = r.rows;
      tot[id] = r.total;
    }));
    const list = await ws;
    const open = activeRef.current;
    const missing = open && !Object.values(byWs).some((r) => r.some((x) => x.id === open)) ? await rowOf(open) : null;
    if (gen !== generation.current) return;
    setWorkspaces(list.items);
    setRows(byWs);
    setTotals(tot);
    setExtra(missing);
  }

  /** One session's row from GET /api/v1/sessions/{id} (the v2 list has no id filter). */
  async function rowOf(id: string): Promise<SessionRow | null> {
    try {
      const s = await api('GET', `/api/v1/sessions/${id}`);
      const status = s.pending_interaction && s.pending_interaction !== 'none' ? s.pending_interaction : s.busy ? 'running' : 'idle';
      return { id: s.id, workspace: { id: s.workspace_id, cwd: s.metadata?.cwd ?? '' }, meta: { title: s.title, last_prompt: s.last_prompt ?? null, archived: s.archived }, activity: { status } };
    } catch {
      return null;
    }
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
    const r = await workspaceRows(wsId, limit);
    setRows((x) => ({ ...x, [wsId]: r.rows }));
    setTotals((x) => ({ ...x, [wsId]: r.total }));
  }

  /**
   * Whether a shown session's status differs from the daemon's: the daemon sends no frame when another
   * session's activity changes, so the sidebar asks for the non-idle set every few seconds.
   */
  async function activityChanged(): Promise<boolean> {
    const page: FlatPage = await api('GET', `/api/v2/sessions?activity.status=running&activity.status=approval&activity.status=question&page_size=100${filter()}`);
    const live = new Map(page.items.map((r) => [r.id, r.activity.status]));
    for (const r of Object.values(shown.current).flat()) {
      const now = live.get(r.id) ?? 'idle';
      const was = r.activity.status === 'failed' ? 'idle' : r.activity.status;
      if (now !== was) return true;
    }
    return false;
  }

  const all = Object.values(rows).flat();
  if (extra && !all.some((r) => r.id === extra.id)) all.push(extra);
  return {
    workspaces, rows, totals, all, load, more, activityChanged,
    setArchived(on: boolean) { archived.current = on; },
  };
}
