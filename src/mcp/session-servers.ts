import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { McpServerV1 } from '../../protocol/schemas/mcp.ts';
import type { ToolSpec } from '../providers/wire/types.ts';
import type { CatalogEntry, NameConflict } from './catalog.ts';
import type { McpConnection } from './connection.ts';
import type { ElicitSite } from './elicitation.ts';

/** `mcp__<server>__<tool>`, with characters model APIs refuse in tool names replaced by `_`. */
export function exposedName(server: string, tool: string): string {
  return `mcp__${server}__${tool.replace(/[^A-Za-z0-9_-]/g, '_')}`;
}

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
  private toolsCache?: { key: string; tools: Map<string, SessionTool> };

  constructor(readonly sessionId: string, readonly root: string) {}

  /** The session's MCP tools by exposed name (names two server tools would share are dropped). */
  tools(): Map<string, SessionTool> {
    const key = [...this.conns.values()].map((c) => `${c.name}:${c.usable}:${c.tools.length}`).join('|');
    const conns = [...this.conns.values()];
    if (this.toolsCache?.key === key && this.toolsCache.tools.size === conns.reduce((n, c) => n + c.tools.length, 0)) return this.toolsCache.tools;
    const out = new Map<string, SessionTool>();
    const dup = new Set<string>();
    for (const c of conns) {
      if (!c.usable) continue;
      for (const t of c.tools) {
        const name = exposedName(c.name, t.name);
        if (out.has(name)) dup.add(name);
        else out.set(name, { name, server: c.name, original: t.name, spec: specOf(name, t) });
      }
    }
    for (const d of dup) out.delete(d);
    this.toolsCache = { key, tools: out };
    return out;
  }

  /** Part B "MCP server (v1 view)" of each server, conflicts included. */
  view(): McpServerV1[] {
    const out: McpServerV1[] = [...this.conns.values()].map((c) => ({
      id: c.name, name: c.name, transport: c.spec.config.transport, status: c.status,
      ...(c.lastError ? { last_error: c.lastError } : {}), tool_count: c.status === 'connected' ? c.tools.length : 0,
    }));
    for (const k of this.conflicts) {
      out.push({ id: k.name, name: k.name, transport: k.entries[0]!.config.transport, status: 'error', last_error: k.message, tool_count: 0 });
    }
    return out.sort((a, b) => a.name.localeCompare(b.name));
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
