import { useEffect, useState } from 'preact/hooks';
import { api, type Socket } from '../api.ts';
import { isTaskEvent, sessionOf } from '../frames.ts';

type Task = { id: string; kind: string; description: string; status: string; run_in_background: boolean; command?: string; created_at: string; output_preview?: string };

/** Background tasks of the session (bash and subagents): status, the tail of a task's output, cancel. */
export function TasksPanel(props: { sid: string; socket: Socket; onError: (e: unknown) => void }) {
  const { sid } = props;
  const [items, setItems] = useState<Task[] | null>(null);
  const [output, setOutput] = useState<{ id: string; text: string } | null>(null);
  const load = async () => setItems((await api<{ items: Task[] }>('GET', `/api/v1/sessions/${sid}/tasks`)).items);
  useEffect(() => {
    setItems(null);
    setOutput(null);
    load().catch(props.onError);
    return props.socket.listen((f) => {
      if (sessionOf(f) !== sid) return;
      const changed = isTaskEvent(f) || (f.type === 'transcript.ops' && f.payload.ops.some((o) => o.op === 'task.upsert' || o.op === 'taskref.upsert'));
      if (changed) void load().catch(() => {});
    });
  }, [sid]);
  const show = async (t: Task) => {
    const data = await api<Task>('GET', `/api/v1/sessions/${sid}/tasks/${t.id}?with_output=true&output_bytes=65536`);
    setOutput({ id: t.id, text: data.output_preview ?? '' });
  };
  return (
    <section class="panel" aria-label="Background tasks">
      <div class="panel-head"><strong>Tasks</strong> <button class="ghost" aria-label="Refresh tasks" onClick={() => load().catch(props.onError)}>↻</button></div>
      {items?.length === 0 && <p class="muted">No background tasks in this session.</p>}
      <ul class="rows">
        {(items ?? []).map((t) => (
          <li key={t.id} class={`task ${t.status}`}>
            <div class="row-head">
              <span class={`badge ${t.status}`}>{t.status}</span>
              <span class="row-title" title={t.command ?? t.description}>{t.description || t.command || t.kind}</span>
            </div>
            {t.command && <code class="cmd">$ {t.command}</code>}
            <div class="buttons">
              <button class="small ghost" onClick={() => show(t).catch(props.onError)}>Output</button>
              {t.status === 'running' && <button class="small danger" onClick={() => api('POST', `/api/v1/sessions/${sid}/tasks/${t.id}:cancel`).then(load).catch(props.onError)}>Cancel</button>}
            </div>
            {output?.id === t.id && <pre class="task-out" aria-label="Task output">{output.text || '(no output)'}</pre>}
          </li>
        ))}
      </ul>
    </section>
  );
}
