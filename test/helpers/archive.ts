import { strFromU8, unzipSync } from 'fflate';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { ServeOptions } from '../../src/app/options.ts';
import { scripts, startFixtureLlm, type FixtureLlm } from '../../fixtures/llm/index.ts';
import { engineConfig } from './llm.ts';
import { newSession, startTestServer, tempHome, type TestServer, type WsClient } from './server.ts';
import { tempDir } from './fs.ts';

export const CANARY = 'sk-CANARY-7f3a9c1e5b2d4086';

export interface Recorded {
  s: TestServer;
  llm: FixtureLlm;
  sid: string;
  cwd: string;
  ws: WsClient;
}

/**
 * A server whose config holds a canary API key, and a session recorded against the fixture LLM: a turn
 * whose Write call is approved over REST, then a plain text turn.
 */
export async function recordSession(t: { teardown(fn: () => unknown): void }, options: Partial<ServeOptions> = {}): Promise<Recorded> {
  const llm = await startFixtureLlm();
  const home = await tempHome();
  const extra = `[providers.canary]\ntype = "chat_compat"\nbase_url = "${llm.url}/v1"\napi_key = "${CANARY}"\n`;
  await writeFile(path.join(home, 'config.toml'), engineConfig(llm.url, extra));
  const s = await startTestServer({ home, options });
  const cwd = await tempDir();
  const sid = await newSession(s, { metadata: { cwd } });
  const ws = await s.ws();
  t.teardown(async () => {
    await ws.close();
    await s.stop();
    await llm.close();
  });
  await ws.request('subscribe', { session_ids: [sid] });
  llm.setScript({ events: [{ tool_call: { id: 'w1', name: 'Write', args: { file_path: 'notes.txt', content: 'zebra notes\n' } } }] }, scripts.helloText);
  await s.post(`/api/v1/sessions/${sid}/prompts`, { content: [{ type: 'text', text: 'write the zebra notes' }] });
  const requested = await ws.waitFor((f) => f.type === 'event.approval.requested' && f.session_id === sid, 30_000);
  await s.post(`/api/v1/sessions/${sid}/approvals/${requested.payload.approval_id}`, { decision: 'approved' });
  await ws.waitFor((f) => f.type === 'turn.ended' && f.session_id === sid, 30_000);
  llm.setScript(scripts.helloText);
  await s.post(`/api/v1/sessions/${sid}/prompts`, { content: [{ type: 'text', text: 'and say hello to the giraffe' }] });
  await ws.waitFor((f) => f.type === 'turn.ended' && f.session_id === sid && ws.frames.filter((x) => x.type === 'turn.ended' && x.session_id === sid).length === 2, 30_000);
  return { s, llm, sid, cwd, ws };
}

/** POST /export: the raw answer. */
export async function exportRaw(s: TestServer, sid: string, body: Record<string, unknown> = {}): Promise<Response> {
  return fetch(`${s.baseUrl}/api/v1/sessions/${sid}/export`, {
    method: 'POST', headers: { Authorization: `Bearer ${s.token}`, 'Content-Type': 'application/json' }, body: JSON.stringify(body),
  });
}

export async function exportZip(s: TestServer, sid: string, body: Record<string, unknown> = {}): Promise<Uint8Array> {
  const res = await exportRaw(s, sid, body);
  if (res.headers.get('content-type') !== 'application/zip') throw new Error(`export failed: ${await res.text()}`);
  return new Uint8Array(await res.arrayBuffer());
}

export function entries(zip: Uint8Array): Record<string, string> {
  return Object.fromEntries(Object.entries(unzipSync(zip)).map(([k, v]) => [k, strFromU8(v)]));
}

/** POST /api/v1/sessions:import with the zip as the multipart part "file". */
export async function importZip(s: TestServer, zip: Uint8Array, name = 'export.zip'): Promise<any> {
  const form = new FormData();
  form.append('file', new Blob([Buffer.from(zip)], { type: 'application/zip' }), name);
  const res = await fetch(`${s.baseUrl}/api/v1/sessions:import`, { method: 'POST', headers: { Authorization: `Bearer ${s.token}` }, body: form });
  return { status: res.status, body: await res.json() };
}
