import { levelDb } from '../helpers/journal.ts';
import test from 'ava';
import { scripts } from '../../fixtures/llm/index.ts';
import { journal, prompt, startEngine, turnEnded } from '../helpers/engine.ts';
import { newSession } from '../helpers/server.ts';

/** Every LevelDB key naming the session (events, head, projection records). */
async function keysOf(db: { keys(r: object): AsyncIterable<unknown> }, sid: string): Promise<string[]> {
  const out: string[] = [];
  for await (const k of db.keys({})) if (String(k).includes(sid)) out.push(String(k));
  return out;
}

test(':delete removes the session from every list and read, removes its journal data, tells other clients, and leaves other sessions as they were', async (t) => {
  const env = await startEngine(t);
  env.llm.setScript(scripts.helloText, scripts.helloText);
  t.is((await prompt(env, 'hi')).code, 0);
  await turnEnded(env);
  const other = await newSession(env.s);
  t.is((await prompt({ s: env.s, sid: other }, 'hello')).code, 0);
  await env.ws.waitFor((f) => f.type === 'event.session.work_changed' && f.session_id === other && f.payload.busy === false);
  const otherBefore = await journal({ s: env.s, sid: other });
  const otherMessages = (await env.s.get(`/api/v1/sessions/${other}/messages`)).data;
  const db = levelDb(env.s.journal) as any;
  t.true((await keysOf(db, env.sid)).length > 0);
  const watcher = await env.s.ws();
  t.teardown(() => watcher.close());

  const live = env.s.liveTranscripts;
  t.is((await env.s.get(`/api/v1/sessions/${env.sid}/transcript?agent_id=main`)).code, 0);
  t.true(live.has(env.sid), 'a read keeps a live fold of the session');
  const r = await env.s.post(`/api/v1/sessions/${env.sid}:delete`);
  t.is(r.code, 0);
  t.deepEqual(r.data, { deleted: true });
  t.false(live.has(env.sid), 'its live transcript fold and op journal are dropped');

  const gone = await watcher.waitFor((f) => f.type === 'event.session.deleted');
  t.like(gone, { session_id: '__global__', payload: { session_id: env.sid, sessionId: env.sid } });
  for (const path of ['', '/messages', '/status', '/snapshot', '/transcript?agent_id=main', '/tasks']) {
    t.is((await env.s.get(`/api/v1/sessions/${env.sid}${path}`)).code, 40401, path);
  }
  t.is((await env.s.post(`/api/v1/sessions/${env.sid}:delete`)).code, 40401);
  const v1 = (await env.s.get('/api/v1/sessions?page_size=100&archived=true')).data.items.map((x: any) => x.id);
  const v1Live = (await env.s.get('/api/v1/sessions?page_size=100')).data.items.map((x: any) => x.id);
  const v2 = (await env.s.get('/api/v2/sessions?page_size=100')).data.items.map((x: any) => x.id ?? x.session_id);
  t.false([...v1, ...v1Live, ...v2].includes(env.sid));
  t.true(v1Live.includes(other));
  t.deepEqual(await keysOf(db, env.sid), [], 'no key of the deleted session is left');
  t.false(env.s.journal.hasStream(env.sid));

  // The other session: same journal, same messages.
  t.deepEqual(await journal({ s: env.s, sid: other }), otherBefore);
  t.deepEqual((await env.s.get(`/api/v1/sessions/${other}/messages`)).data, otherMessages);
  const ws = (await env.s.get('/api/v1/workspaces')).data.items;
  t.is(ws.reduce((n: number, w: any) => n + w.session_count, 0), 1);

  // After a restart the session stays gone (nothing left to rebuild it from).
  await watcher.close();
  await env.ws.close();
  const s2 = await env.s.restart();
  env.s = s2;
  t.is((await s2.get(`/api/v1/sessions/${env.sid}`)).code, 40401);
  t.is((await s2.get(`/api/v1/sessions/${other}`)).code, 0);
  env.ws = await s2.ws();
});

test(':delete of a busy session is 40901 and deletes nothing; an unknown one is 40401', async (t) => {
  const env = await startEngine(t);
  env.llm.setScript(scripts.hang);
  t.is((await prompt(env, 'wait')).code, 0);
  await env.ws.waitFor((f) => f.type === 'event.session.work_changed' && f.payload.busy === true);
  t.is((await env.s.post(`/api/v1/sessions/${env.sid}:delete`)).code, 40901);
  t.is((await env.s.get(`/api/v1/sessions/${env.sid}`)).code, 0);
  t.is((await env.s.post('/api/v1/sessions/session_nope:delete')).code, 40401);
  await env.s.post(`/api/v1/sessions/${env.sid}:abort`);
});
