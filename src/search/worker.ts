import { parentPort, workerData } from 'node:worker_threads';
import { SearchEngine } from '../../projections/search/engine.ts';
import type { FromWorker, ToWorker } from './backend.ts';
import { collectGarbage } from './gc.ts';

// The search index off the request path (`[database] search = true`): ops in, answers out, in order.
const engine = new SearchEngine((workerData as { budgets?: ConstructorParameters<typeof SearchEngine>[0] }).budgets);
parentPort!.on('message', (m: ToWorker) => {
  if (m.t === 'ops') {
    for (const op of m.ops) engine.apply(op);
    parentPort!.postMessage({ t: 'applied' } satisfies FromWorker);
    return;
  }
  if (m.t === 'built') {
    engine.trim();
    collectGarbage();
    return;
  }
  const reply: FromWorker = { t: 'reply', id: m.id, reply: { page: engine.search(m.q), documents: engine.documents, sessions: engine.sessionCount } };
  parentPort!.postMessage(reply);
});
