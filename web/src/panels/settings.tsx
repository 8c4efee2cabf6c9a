import { useEffect, useRef, useState } from 'preact/hooks';
import { api } from '../api.ts';

type Provider = { id: string; type: string; base_url?: string; default_model?: string; has_api_key: boolean; status: string; models: string[] };
type Model = { provider: string; model: string; display_name?: string; max_context_size: number };
type Flow = { flow_id: string; status: string; verification_uri?: string; verification_uri_complete?: string; user_code?: string; error_message?: string };
type Auth = { models_ready: boolean; providers_count: number; managed_provider: { name: string; status: string } | null };

const TYPES = ['messages_api', 'chat_compat', 'chat_compat_responses', 'genai', 'cloud_ai', 'svc'];

/** Settings (a modal dialog; Escape closes it): providers, the default model, the managed provider's device login. */
export function SettingsDialog(props: { onClose: () => void; onError: (e: unknown) => void }) {
  const ref = useRef<HTMLDialogElement>(null);
  const [providers, setProviders] = useState<Provider[]>([]);
  const [models, setModels] = useState<Model[]>([]);
  const [defaultModel, setDefaultModel] = useState('');
  const [auth, setAuth] = useState<Auth | null>(null);
  const [adding, setAdding] = useState(false);
  const load = async () => {
    const [p, m, c, a] = await Promise.all([
      api<{ items: Provider[] }>('GET', '/api/v1/providers'),
      api<{ items: Model[] }>('GET', '/api/v1/models'),
      api<{ default_model: string }>('GET', '/api/v1/config'),
      api<Auth>('GET', '/api/v1/auth').catch(() => null),
    ]);
    setProviders(p.items);
    setModels(m.items);
    setDefaultModel(c.default_model);
    setAuth(a);
  };
  useEffect(() => {
    ref.current?.showModal();
    load().catch(props.onError);
  }, []);
  const setDefault = async (alias: string) => {
    const r = await api<{ default_model: string }>('POST', `/api/v1/models/${encodeURIComponent(alias)}:set_default`);
    setDefaultModel(r.default_model);
  };
  return (
    <dialog ref={ref} class="settings" aria-label="Settings" onClose={props.onClose} onCancel={() => props.onClose()}>
      <div class="panel-head"><h2>Settings</h2><span class="spacer" /><button class="ghost" aria-label="Close settings" onClick={() => ref.current?.close()}>×</button></div>

      <section aria-label="Models">
        <h3>Default model</h3>
        {models.length === 0 ? <p class="muted">No model yet: add a provider below.</p> : (
          <select aria-label="Default model" value={defaultModel} onChange={(e) => setDefault(e.currentTarget.value).catch(props.onError)}>
            {!defaultModel && <option value="">(none)</option>}
            {models.map((m) => <option key={m.model} value={m.model}>{m.display_name ? `${m.display_name} (${m.model})` : m.model}</option>)}
          </select>
        )}
      </section>

      <section aria-label="Providers">
        <div class="panel-head"><h3>Providers</h3><span class="spacer" /><button class="small" aria-expanded={adding} onClick={() => setAdding(!adding)}>Add provider</button></div>
        {adding && <AddProvider onDone={() => { setAdding(false); void load().catch(props.onError); }} onError={props.onError} />}
        <ul class="rows">
          {providers.map((p) => (
            <li key={p.id} data-provider={p.id}>
              <div class="row-head">
                <span class={`badge ${p.status}`}>{p.status}</span>
                <span class="row-title">{p.id}</span>
                <span class="muted small-text">{p.type}{p.has_api_key ? ' · key stored' : ''}</span>
                <button class="small danger" aria-label={`Delete provider ${p.id}`} onClick={() => { if (confirm(`Delete the provider ${p.id} and its models?`)) api('DELETE', `/api/v1/providers/${encodeURIComponent(p.id)}`).then(load).catch(props.onError); }}>Delete</button>
              </div>
              <div class="muted small-text">{p.models.join(', ')}</div>
            </li>
          ))}
        </ul>
      </section>

      {auth?.managed_provider !== undefined && <DeviceLogin auth={auth} onChange={() => void load().catch(() => {})} onError={props.onError} />}
    </dialog>
  );
}

function AddProvider(props: { onDone: () => void; onError: (e: unknown) => void }) {
  const [f, setF] = useState({ id: '', type: 'chat_compat', base_url: '', api_key: '', model: '', ctx: '128000' });
  const field = (k: keyof typeof f) => ({ value: f[k], onInput: (e: Event) => setF({ ...f, [k]: (e.currentTarget as HTMLInputElement).value }) });
  const submit = async () => {
    await api('POST', '/api/v1/providers', {
      id: f.id.trim(), type: f.type,
      ...(f.base_url.trim() ? { base_url: f.base_url.trim() } : {}),
      ...(f.api_key ? { api_key: f.api_key } : {}),
      default_model: f.model.trim(),
      models: [{ model: f.model.trim(), max_context_size: Number(f.ctx) || 128000 }],
    });
    props.onDone();
  };
  return (
    <form class="stack" aria-label="Add a provider" onSubmit={(e) => { e.preventDefault(); submit().catch(props.onError); }}>
      <label>Name <input aria-label="Provider name" required {...field('id')} /></label>
      <label>Type <select aria-label="Provider type" value={f.type} onChange={(e) => setF({ ...f, type: e.currentTarget.value })}>{TYPES.map((t) => <option key={t}>{t}</option>)}</select></label>
      <label>Base URL <input aria-label="Base URL" placeholder="https://…" {...field('base_url')} /></label>
      <label>API key <input aria-label="API key" type="password" autocomplete="off" {...field('api_key')} /></label>
      <label>Model <input aria-label="Model id" required {...field('model')} /></label>
      <label>Context size <input aria-label="Context size" type="number" min="1" {...field('ctx')} /></label>
      <button type="submit">Add</button>
    </form>
  );
}

/** The managed provider's device login: a code to enter at the provider's page, polled until it resolves. */
function DeviceLogin(props: { auth: Auth; onChange: () => void; onError: (e: unknown) => void }) {
  const [flow, setFlow] = useState<Flow | null>(null);
  useEffect(() => {
    if (flow?.status !== 'pending') return;
    const timer = setInterval(() => {
      api<Flow | null>('GET', '/api/v1/auth/login').then((f) => {
        if (!f) return;
        setFlow(f);
        if (f.status !== 'pending') props.onChange();
      }).catch(() => {});
    }, 2000);
    return () => clearInterval(timer);
  }, [flow?.flow_id, flow?.status]);
  const mp = props.auth.managed_provider;
  return (
    <section aria-label="Managed provider">
      <h3>Managed provider</h3>
      <p>{mp ? <>{mp.name}: <span class={`badge ${mp.status}`}>{mp.status}</span></> : 'Not signed in.'}</p>
      {flow?.status === 'pending' && (
        <p class="device-code">Open <a href={flow.verification_uri_complete ?? flow.verification_uri} target="_blank" rel="noreferrer noopener">{flow.verification_uri}</a> and enter <code>{flow.user_code}</code></p>
      )}
      {flow && flow.status !== 'pending' && <p class="muted">Login {flow.status}{flow.error_message ? `: ${flow.error_message}` : ''}</p>}
      <div class="buttons">
        {flow?.status === 'pending'
          ? <button class="ghost" onClick={() => api('DELETE', '/api/v1/auth/login').then(() => setFlow({ ...flow, status: 'cancelled' })).catch(props.onError)}>Cancel login</button>
          : <button onClick={() => api<Flow>('POST', '/api/v1/auth/login', {}).then(setFlow).catch(props.onError)}>{mp?.status === 'authenticated' ? 'Sign in again' : 'Sign in (device code)'}</button>}
        {mp && <button class="ghost" onClick={() => api('POST', '/api/v1/auth/logout', {}).then(props.onChange).catch(props.onError)}>Sign out</button>}
      </div>
    </section>
  );
}
