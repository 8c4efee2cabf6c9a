import test from 'ava';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { scripts } from '../../fixtures/llm/index.ts';
import { prompt, startEngine, turnEnded } from '../helpers/engine.ts';
import { makePng } from '../helpers/images.ts';

// A real PNG: the model is sent images that decode (an undecodable one becomes a note); noise keeps its base64 distinctive.
const PNG = await makePng(24, 24, { noise: true });
const B64 = PNG.toString('base64');

test('a fork keeps its copied prompt media readable, even once the source media is gone', async (t) => {
  const env = await startEngine(t);
  env.llm.setScript(scripts.helloText, scripts.helloText);
  const r = await prompt(env, { content: [{ type: 'image', source: { kind: 'base64', media_type: 'image/png', data: B64 } }] });
  t.is(r.code, 0);
  const fileId = r.data.content[0].source.file_id;
  await turnEnded(env);

  const fork = await env.s.post(`/api/v1/sessions/${env.sid}:fork`, {});
  t.is(fork.code, 0);
  const forkId = fork.data.id;
  await rm(path.join(env.s.home, 'sessions-media', env.sid), { recursive: true });

  const res = await fetch(`${env.s.baseUrl}/api/v1/sessions/${forkId}/media/${fileId}`, { headers: { Authorization: `Bearer ${env.s.token}` } });
  t.is(res.status, 200);
  t.deepEqual(Buffer.from(await res.arrayBuffer()), PNG);
  t.is((await fetch(`${env.s.baseUrl}/api/v1/sessions/${env.sid}/media/${fileId}`, { headers: { Authorization: `Bearer ${env.s.token}` } })).status, 404);

  // The fork's turns read the image from the fork's own store, and may reuse its id.
  await env.ws.request('subscribe', { session_ids: [forkId] });
  const again = await env.s.post(`/api/v1/sessions/${forkId}/prompts`, { content: [{ type: 'image', source: { kind: 'session_media', file_id: fileId } }] });
  t.is(again.code, 0);
  await env.ws.waitFor((f) => f.type === 'turn.ended' && f.session_id === forkId, 30_000);
  const user = JSON.stringify(env.llm.requests.at(-1)!.body.messages.filter((m: any) => m.role === 'user'));
  t.is(user.split(B64).length - 1, 2);
});
