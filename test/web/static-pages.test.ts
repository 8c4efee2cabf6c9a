import test from 'ava';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { serverFor } from '../helpers/server.ts';
import { scratchDir } from '../helpers/fs.ts';

// HTML documents are kept split around the CSP nonce (src/http/static.ts) while their file is unchanged: a rebuild
// of the UI (a new index.html, same path, same size or not) is served at the next request, with its nonce, the
// --web-title kept.

const page = (title: string, body: string) => `<!doctype html><html><head><title>${title}</title></head><body>${body}</body></html>`;
const nonceOf = (res: Response) => /'nonce-([A-Za-z0-9+/=]+)'/.exec(res.headers.get('content-security-policy')!)![1]!;

test('a rebuilt index.html is served at the next request, the nonce meta first in <head>', async (t) => {
  const root = await scratchDir(t);
  await mkdir(path.join(root, 'assets'));
  await writeFile(path.join(root, 'index.html'), page('x', 'one'));
  const s = await serverFor(t, { options: { webRoot: root, webTitle: 'Mine' } });
  for (const body of ['one', 'two', 'six', 'a longer one']) {
    await writeFile(path.join(root, 'index.html'), page('x', body));
    for (const at of ['/', '/some/client/route']) {
      const res = await fetch(`${s.baseUrl}${at}`);
      const nonce = nonceOf(res);
      t.is(await res.text(), `<!doctype html><html><head><meta property="csp-nonce" nonce="${nonce}" /><title>Mine</title></head><body>${body}</body></html>`);
    }
  }
  // Another page of the build is split the same way; a page with no head and no doctype gets the meta first.
  await writeFile(path.join(root, 'plain.html'), '<p>plain</p>');
  const res = await fetch(`${s.baseUrl}/plain.html`);
  t.is(await res.text(), `<meta property="csp-nonce" nonce="${nonceOf(res)}" /><p>plain</p>`);
});
