import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { McpServerV1 } from '../../protocol/schemas/mcp.ts';
import type { ToolSpec } from '../providers/wire/types.ts';
import type { CatalogEntry, NameConflict } from './catalog.ts';
import type { McpConnection } from './connection.ts';
import type { ElicitSite } from './elicitation.ts';
import { exposedName } from './names.ts';

export { exposedName };

/** One tool a session offers from an MCP server: the exposed name maps back to exactly one server tool. */
export interface SessionTool {
  name: string;
  server: string;
  /** The server's own name of the tool (what is called). */
  original: string;
  spec: ToolSpec;
}

/**
 * The MCP servers of one live session: a connection per runtime name, the names that cannot run
 * (shared by several enabled plugin entries), and the tool calls in flight per server (an
 * elicitation request belongs to the most recent one).
 */
export class SessionServers {
  readonly conns = new Map<string, McpConnection>();
  readonly entries = new Map<string, CatalogEntry>();
  conflicts: NameConflict[] = [];
  /** Settles when the catalog is read and every connection has finished starting. */
  started: Promise<void> = Promise.resolve();
  /** Settles when the catalog is read and the connections exist (they may still be starting). */
  built: Promise<void> = Promise.resolve();
  readonly inflight = new Map<string, ElicitSite[]>();
  closed = false;
  /** Whether the servers were asked to start: on the session's first turn, not when a read loads its runtime. */
  active = false;
  private toolsCache?: { key: string; conns: McpConnection[]; tools: Map<string, SessionTool> };

  constructor(readonly sessionId: string, readonly root: string) {}

  /** The session's MCP tools by exposed name (names two server tools would share are dropped). */
  tools(): Map<string, SessionTool> {
    const conns = [...this.conns.values()];
    const key = conns.map((c) => `${c.name}:${c.usable}:${c.toolsVersion}`).join('|');
    const cache = this.toolsCache;
    if (cache?.key === key && cache.conns.length === conns.length && cache.conns.every((c, i) => c === conns[i])) return cache.tools;
    const out = new Map<string, SessionTool>();
    const dup = new Set<string>();
    for (const c of conns) {
      if (!c.usable) continue;
      for (const t of c.offered) {
        const name = exposedName(c.name, t.name);
        if (out.has(name)) dup.add(name);
        else out.set(name, { name, server: c.name, original: t.name, spec: specOf(name, t) });
      }
    }
    for (const d of dup) out.delete(d);
    this.toolsCache = { key, conns, tools: out };
    return out;
  }

  /** Part B "MCP server (v1 view)" of each server, conflicts included. */
  view(): McpServerV1[] {
    const out: McpServerV1[] = [...this.conns.values()].map((c) => ({
      id: c.name, name: c.name, transport: c.spec.config.transport, status: c.status,
      ...(c.lastError ? { last_error: c.lastError } : {}), tool_count: c.status === 'connected' ? c.offered.length : 0,
    }));
    for (const k of this.conflicts) {
      out.push({ id: k.name, name: k.name, transport: k.entries[0]!.config.transport, status: 'error', last_error: k.message, tool_count: 0 });
    }
    return out.sort((a, b) => a.name.localeCompare(b.name));
  }

  /** The servers start (those not started yet); `started` settles when each has connected or failed. */
  activate(): Promise<void> {
    this.active = true;
    const pending = [...this.conns.values()].filter((c) => !c.started).map((c) => c.start());
    if (pending.length) this.started = Promise.all([this.started, ...pending]).then(() => undefined);
    return this.started;
  }

  /**
   * The catalog changed: servers no longer declared, or declared differently, stop; new ones are added
   * (and start when the session is active).
   */
  async apply(run: CatalogEntry[], conflicts: NameConflict[], make: (e: CatalogEntry) => McpConnection): Promise<void> {
    this.conflicts = conflicts;
    const wanted = new Map(run.map((e) => [e.name, e]));
    const stopping: Array<Promise<void>> = [];
    for (const [name, conn] of [...this.conns]) {
      const next = wanted.get(name);
      const was = this.entries.get(name);
      if (next && was && JSON.stringify(next.config) === JSON.stringify(was.config) && next.origin === was.origin) continue;
      this.conns.delete(name);
      this.entries.delete(name);
      stopping.push(conn.stop());
    }
    for (const [name, e] of wanted) {
      if (this.conns.has(name)) continue;
      this.entries.set(name, e);
      this.conns.set(name, make(e));
    }
    await Promise.all(stopping);
    // Not awaited: a server may take its whole startup timeout; `started` (awaited by turns) covers it.
    if (this.active) void this.activate();
  }

  /** Replaces one server's connection (`:restart`); it starts when the session is active or `now`. */
  async replace(entry: CatalogEntry, make: (e: CatalogEntry) => McpConnection, now: boolean): Promise<void> {
    const old = this.conns.get(entry.name);
    const next = make(entry);
    this.entries.set(entry.name, entry);
    this.conns.set(entry.name, next);
    await old?.stop();
    if (this.active || now) this.started = Promise.all([this.started, next.start()]).then(() => undefined);
  }

  enter(server: string, site: ElicitSite): () => void {
    const list = this.inflight.get(server) ?? [];
    list.push(site);
    this.inflight.set(server, list);
    return () => {
      const i = list.indexOf(site);
      if (i >= 0) list.splice(i, 1);
    };
  }
}

function specOf(name: string, t: Tool): ToolSpec {
  const schema = (t.inputSchema ?? { type: 'object' }) as Record<string, unknown>;
  return {
    name,
    description: [t.title && t.title !== t.name ? t.title : '', t.description ?? ''].filter(Boolean).join(': ') || `MCP tool ${t.name}`,
    inputSchema: { ...schema, type: 'object', properties: (schema.properties as Record<string, unknown> | undefined) ?? {} },
  };
}
