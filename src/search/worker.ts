import { parentPort, workerData } from 'node:worker_threads';
import type { SearchBudgets } from '../../projections/search/engine.ts';
import type { FromWorker, ToWorker } from './backend.ts';
import { collectGarbage } from './gc.ts';
import { IndexHost } from './host.ts';

// The search index off the request path (`[database] search = true`): ops in, answers out, in order.
const { budgets, dir } = workerData as { budgets?: SearchBudgets; dir?: string };
const host = new IndexHost(budgets, dir);
const port = parentPort!;
port.on('message', (m: ToWorker) => {
  if (m.t === 'ops') {
    host.apply(m.ops, m.marks);
    port.postMessage({ t: 'applied' } satisfies FromWorker);
    return;
  }
  if (m.t === 'built') {
    host.trim();
    collectGarbage();
    return;
  }
  let reply: FromWorker;
  try {
    reply = { t: 'reply', id: m.id, reply: answer(m) };
  } catch (err) {
    reply = { t: 'reply', id: m.id, error: (err as Error).message };
  }
  if (m.id) port.postMessage(reply);
});

function answer(m: Extract<ToWorker, { id: number }>): unknown {
  switch (m.t) {
    case 'open': return host.open(m.restore);
    case 'save': return host.save();
    case 'stats': return host.stats();
    case 'search': return host.search(m.q);
  }
}
