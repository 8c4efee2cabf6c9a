// Model, thinking, permission mode and plan mode of the session: read from GET /status (and the model
// list from GET /models), changed through POST /profile {agent_config}. They apply to the next turn.
import { useEffect, useState } from 'preact/hooks';
import { api } from '../api.ts';
import type { Act } from '../chat/cards.tsx';

type ModelItem = { provider: string; model: string; display_name?: string; support_efforts?: string[]; capabilities?: string[] };
type Status = { model?: string; thinking_level: string; permission: string; plan_mode: boolean; context_tokens?: number; max_context_tokens?: number; context_usage?: number };

/** How full the session's context is (GET /status `context_usage`, 0-1), as a meter; the tokens on hover. */
function Context(props: { s: Status }) {
  const { s } = props;
  const share = typeof s.context_usage === 'number' ? s.context_usage
    : s.max_context_tokens && typeof s.context_tokens === 'number' ? s.context_tokens / s.max_context_tokens : undefined;
  if (share === undefined || !Number.isFinite(share) || (share === 0 && !s.context_tokens)) return null;
  const pct = Math.min(100, Math.max(0, Math.round(share * 100)));
  const shownPct = pct === 0 && share > 0 ? '<1' : String(pct);
  const tokens = typeof s.context_tokens === 'number' ? `${s.context_tokens.toLocaleString()}${s.max_context_tokens ? ` of ${s.max_context_tokens.toLocaleString()}` : ''} tokens` : '';
  return (
    <span class={`context${pct >= 80 ? ' high' : ''}`} title={`Context used: ${shownPct}%${tokens ? ` (${tokens})` : ''}`} aria-label={`Context ${shownPct}% used`}>
      <span class="meter"><span style={{ width: `${pct}%` }} /></span><span class="label">{shownPct}% context</span>
    </span>
  );
}

const EFFORTS = ['low', 'medium', 'high', 'xhigh', 'max'];
const PERMISSIONS: [string, string][] = [['manual', 'Ask before changes'], ['auto', 'Auto-accept edits'], ['yolo', 'Yolo: accept all']];

/** `refreshKey` changes when the session's modes may have changed under us (a turn ended, meta.agent / meta.modes moved). */
export function Pickers(props: { sid: string; act: Act; refreshKey: string }) {
  const { sid, act } = props;
  const [models, setModels] = useState<ModelItem[]>([]);
  const [status, setStatus] = useState<Status | null>(null);
  const loadStatus = () => api<Status>('GET', `/api/v1/sessions/${sid}/status`).then(setStatus).catch((e) => console.warn('session status not read', e));
  useEffect(() => {
    api<{ items: ModelItem[] }>('GET', '/api/v1/models').then((d) => setModels(d.items)).catch((e) => console.warn('models not read', e));
  }, []);
  useEffect(() => { void loadStatus(); }, [sid, props.refreshKey]);
  const set = (agent_config: Record<string, unknown>) => act(async () => {
    setStatus((s) => s && { ...s, ...('model' in agent_config ? { model: agent_config.model as string } : {}), ...('thinking' in agent_config ? { thinking_level: agent_config.thinking as string } : {}), ...('permission_mode' in agent_config ? { permission: agent_config.permission_mode as string } : {}), ...('plan_mode' in agent_config ? { plan_mode: agent_config.plan_mode as boolean } : {}) });
    await api('POST', `/api/v1/sessions/${sid}/profile`, { agent_config });
    await loadStatus();
  });
  if (!status) return null;
  const current = models.find((m) => m.model === status.model);
  const efforts = current?.support_efforts?.length ? current.support_efforts : EFFORTS;
  const thinking = status.thinking_level;
  return (
    <div class="pickers">
      <select aria-label="Model" title="Model" value={status.model ?? ''} onChange={(e) => void set({ model: e.currentTarget.value })}>
        {status.model && !current && <option value={status.model}>{status.model}</option>}
        {!status.model && <option value="">(default model)</option>}
        {models.map((m) => <option key={m.model} value={m.model}>{m.display_name ? `${m.display_name} (${m.model})` : m.model}</option>)}
      </select>
      <select aria-label="Thinking" title="Thinking effort" value={thinking} onChange={(e) => void set({ thinking: e.currentTarget.value })}>
        {!['off', 'on', ...efforts].includes(thinking) && <option value={thinking}>{thinking === 'default' ? 'thinking: default' : thinking}</option>}
        <option value="off">thinking off</option>
        {efforts.map((x) => <option key={x} value={x}>thinking {x}</option>)}
      </select>
      <select aria-label="Permission mode" title="Permission mode" value={status.permission} onChange={(e) => void set({ permission_mode: e.currentTarget.value })}>
        {!PERMISSIONS.some(([v]) => v === status.permission) && <option value={status.permission}>{status.permission}</option>}
        {PERMISSIONS.map(([v, label]) => <option key={v} value={v}>{label}</option>)}
      </select>
      <label class="plan-toggle" title="Plan mode: the agent may only read and plan until you approve its plan">
        <input type="checkbox" aria-label="Plan mode" checked={status.plan_mode} onChange={(e) => void set({ plan_mode: e.currentTarget.checked })} /> Plan
      </label>
      <Context s={status} />
    </div>
  );
}
