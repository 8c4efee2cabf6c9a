import type { TestServer } from './server.ts';

/** GET with the bearer token, the body as bytes (binary endpoints: media, downloads, uploads). */
export async function rawGet(s: TestServer, url: string, headers: Record<string, string> = {}) {
  const res = await fetch(s.baseUrl + url, { headers: { Authorization: `Bearer ${s.token}`, ...headers } });
  return { status: res.status, headers: res.headers, bytes: Buffer.from(await res.arrayBuffer()) };
}

export interface UploadedFile { id: string; name: string; media_type: string; size: number }

/** POST /api/v1/files with one file; throws unless the upload succeeded. */
export async function uploadFile(s: TestServer, data: Buffer | Blob, name: string, type?: string): Promise<UploadedFile> {
  const form = new FormData();
  form.append('file', data instanceof Blob ? data : new Blob([new Uint8Array(data)], type ? { type } : {}), name);
  const res = await fetch(`${s.baseUrl}/api/v1/files`, { method: 'POST', headers: { Authorization: `Bearer ${s.token}` }, body: form });
  const body = (await res.json()) as any;
  if (body.code !== 0) throw new Error(`upload failed: ${JSON.stringify(body)}`);
  return body.data;
}
