/**
 * Child-process entry: the fixture LLM in a process of its own, as a remote provider is. Sharing
 * the daemon's or the client's event loop would charge the fixture's streaming work to them.
 * IPC: `script` replaces the reply queue; `arrivals` returns, per request, the text of its last
 * message and when it arrived (epoch ms, `performance.timeOrigin + performance.now()`).
 */
import { startFixtureLlm, type Reply } from '../../fixtures/llm/index.ts';
import { recordArrivals } from './fixture-remote.ts';

export type FixtureRequest = { id: number; op: 'script'; replies: Reply[] } | { id: number; op: 'arrivals' };

if (!process.send) throw new Error('fixture-child needs an IPC channel');
const send = (msg: unknown) => process.send!(msg);
const llm = await startFixtureLlm();
const arrivals = recordArrivals(llm);

process.on('message', (req: FixtureRequest) => {
  if (req.op === 'script') {
    llm.setScript(...req.replies);
    send({ id: req.id });
  } else if (req.op === 'arrivals') send({ id: req.id, arrivals });
});
const quit = () => void llm.close().then(() => process.exit(0));
process.on('disconnect', quit);
process.once('SIGTERM', quit);
send({ ready: true, url: llm.url });
