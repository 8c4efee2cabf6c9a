/**
 * Child-process entry: the real server started in-process with `startServer`
 * (as the CLI does), plus a small IPC channel that appends durable events
 * straight through the journal. The benchmark's WebSocket clients live in the
 * parent, so client work never shares the server's event loop.
 */
import pino from 'pino';
import { defaultServeOptions } from '../../src/app/options.ts';
import { startServer } from '../../src/app/server.ts';
import { readSettings } from '../../src/app/settings.ts';
import { runBounded } from './pool.ts';
import type { NewStreamEvent } from '../../protocol/events/registry.ts';

export type HarnessRequest =
  | { id: number; op: 'append'; stream: string; count: number; batch: number; inflight: number }
  | { id: number; op: 'head'; stream: string };

const home = process.env.SVC_CODE_HOME;
if (!home || !process.send) throw new Error('server-child needs SVC_CODE_HOME and an IPC channel');
const send = (msg: unknown) => process.send!(msg);

const server = await startServer({ home, settings: readSettings(process.env), options: { ...defaultServeOptions(), port: 0 }, log: pino({ level: 'warn' }, pino.destination(2)) });
const { journal } = server.parts;

/** Appends `count` profile-update events in appends of `batch` events, `inflight` appends at a time. */
async function append(stream: string, count: number, batch: number, inflight: number): Promise<number> {
  const appends = Math.ceil(count / batch);
  const t0 = performance.now();
  await runBounded(appends, inflight, async (a) => {
    const n = Math.min(batch, count - a * batch);
    const events = Array.from({ length: n }, (_, k): NewStreamEvent => ({
      stream, type: 'session.profile_updated', payload: { title: `bench title ${a * batch + k}` },
    }));
    await journal.append(events);
  });
  return performance.now() - t0;
}

process.on('message', (req: HarnessRequest) => {
  const reply = (body: object) => send({ id: req.id, ...body });
  const fail = (err: unknown) => reply({ error: (err as Error).message ?? String(err) });
  if (req.op === 'append') {
    append(req.stream, req.count, req.batch, req.inflight).then((ms) => reply({ ms, head: journal.head(req.stream) }), fail);
  } else if (req.op === 'head') {
    reply({ head: journal.head(req.stream) ?? null });
  }
});
// Quit with the parent, never outlive the benchmark; exit normally so --cpu-prof can write its profile.
const quit = () => void server.close().then(() => process.exit(0));
process.on('disconnect', quit);
process.once('SIGTERM', quit);
send({ ready: true, baseUrl: server.baseUrl });
