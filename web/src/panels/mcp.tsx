import { useEffect, useState } from 'preact/hooks';
import { api } from '../api.ts';

type Managed = { name: string; config: Record<string, unknown>; source: string; mutable: boolean; layer?: string; shadowed?: boolean };
type Live = { id: string; name: string; transport: string; status: string; last_error?: string; tool_count: number };

/**
 * MCP servers: the configured ones (GET /api/v2/mcp/servers, for the session folder), their live status in
 * the running agent (GET /api/v1/mcp/servers), restart, test, add a user-level server, remove one.
 */
export function McpPanel(props: { cwd?: string; onError: (e: unknown) => void }) {
  const [servers, setServers] = useState<Managed[] | null>(null);
  const [live, setLive] = useState<Live[]>([]);
  const [probe, setProbe] = useState<{ name: string; text: string } | null>(null);
  const [adding, setAdding] = useState(false);
  const q = props.cwd ? `?cwd=${encodeURIComponent(props.cwd)}` : '';
  const load = async () => {
    const [list, rt] = await Promise.all([
      api<Managed[]>('GET', `/api/v2/mcp/servers${q}`),
      api<{ servers: Live[] }>('GET', '/api/v1/mcp/servers').catch(() => ({ servers: [] as Live[] })),
    ]);
    setServers(list);
    setLive(rt.servers);
  };
  useEffect(() => { load().catch(props.onError); }, [props.cwd]);

  const test = async (name: string) => {
    setProbe({ name, text: 'Testing…' });
    const r = await api<{ success: boolean; output: string }>('POST', '/api/v2/mcp/servers:test', { name, ...(props.cwd ? { cwd: props.cwd } : {}) });
    setProbe({ name, text: `${r.success ? 'OK' : 'Failed'}: ${r.output}` });
  };

  return (
    <section class="panel" aria-label="MCP servers">
      <div class="panel-head"><strong>MCP servers</strong>
        <span class="spacer" />
        <button class="small" onClick={() => setAdding(!adding)} aria-expanded={adding}>Add server</button>
        <button class="ghost" aria-label="Refresh MCP servers" onClick={() => load().catch(props.onError)}>↻</button>
      </div>
      {adding && <AddMcpServer onDone={(list) => { setServers(list); setAdding(false); }} onError={props.onError} />}
      {servers?.length === 0 && <p class="muted">No MCP server configured.</p>}
      <ul class="rows">
        {(servers ?? []).map((s) => {
          const l = live.find((x) => x.name === s.name);
          const transport = String(s.config.transport ?? (s.config.url ? 'http' : 'stdio'));
          return (
            <li key={`${s.source}-${s.name}`} class="mcp" data-server={s.name}>
              <div class="row-head">
                <span class={`badge ${l?.status ?? 'idle'}`}>{l ? l.status : 'not running'}</span>
                <span class="row-title">{s.name}</span>
                <span class="muted small-text">{transport} · {s.layer ?? s.source}{s.shadowed ? ' · shadowed' : ''}</span>
              </div>
              {l && <div class="muted small-text">{l.tool_count} tools{l.last_error ? ` · ${l.last_error}` : ''}</div>}
              <div class="buttons">
                <button class="small ghost" onClick={() => test(s.name).catch(props.onError)}>Test</button>
                {l && <button class="small ghost" onClick={() => api('POST', `/api/v1/mcp/servers/${l.id}:restart`).then(load).catch(props.onError)}>Restart</button>}
                {s.mutable && <button class="small danger" aria-label={`Remove ${s.name}`} onClick={() => { if (confirm(`Remove the MCP server ${s.name}?`)) api<Managed[]>('DELETE', `/api/v2/mcp/servers/${encodeURIComponent(s.name)}`).then(setServers).catch(props.onError); }}>Remove</button>}
              </div>
              {probe?.name === s.name && <pre class="task-out" aria-label="Test result">{probe.text}</pre>}
            </li>
          );
        })}
      </ul>
    </section>
  );
}

function AddMcpServer(props: { onDone: (list: Managed[]) => void; onError: (e: unknown) => void }) {
  const [name, setName] = useState('');
  const [transport, setTransport] = useState<'stdio' | 'http' | 'sse'>('stdio');
  const [target, setTarget] = useState('');
  const submit = async () => {
    const words = target.trim().split(/\s+/).filter(Boolean);
    const body = transport === 'stdio' ? { name: name.trim(), transport, command: words[0], args: words.slice(1) } : { name: name.trim(), transport, url: target.trim() };
    props.onDone(await api<Managed[]>('POST', '/api/v2/mcp/servers', body));
  };
  return (
    <form class="stack" aria-label="Add an MCP server" onSubmit={(e) => { e.preventDefault(); submit().catch(props.onError); }}>
      <input aria-label="Server name" placeholder="name" value={name} onInput={(e) => setName(e.currentTarget.value)} required />
      <select aria-label="Transport" value={transport} onChange={(e) => setTransport(e.currentTarget.value as 'stdio')}>
        <option value="stdio">stdio (a command)</option><option value="http">http</option><option value="sse">sse</option>
      </select>
      <input aria-label={transport === 'stdio' ? 'Command' : 'URL'} placeholder={transport === 'stdio' ? 'npx -y some-mcp-server' : 'https://…'} value={target} onInput={(e) => setTarget(e.currentTarget.value)} required />
      <button type="submit">Save</button>
    </form>
  );
}
