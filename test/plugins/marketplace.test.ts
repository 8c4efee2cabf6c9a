import test from 'ava';
import { serverFor } from '../helpers/server.ts';
import { loopbackServer, pluginFolder } from '../helpers/plugins.ts';

process.env.SVC_CODE_PLUGINS_ALLOW_LOOPBACK_HTTP = '1';
// No daemon tool backs svc-cu or svc-webbridge yet: both report unsupported, so their rows are dropped.

test('the catalog is fetched per request and merged with install state; rows of unsupported capabilities are dropped; a failing catalog is 50001', async (t) => {
  let catalog: unknown = {
    entries: [
      { id: 'toolbox', tier: 'official', displayName: 'Toolbox', version: '1.1.0', source: 'https://example.com/acme/toolbox', keywords: ['ci'] },
      { id: 'other', tier: 'curated', displayName: 'Other', source: 'https://example.com/other.zip' },
      { id: 'cu', tier: 'official', displayName: 'Computer use', source: 'capability:svc-cu', capabilityId: 'svc-cu' },
      { id: 'wb', tier: 'official', displayName: 'Web bridge', source: 'capability:svc-webbridge', capabilityId: 'svc-webbridge' },
      { tier: 'official', displayName: 'no id: skipped' },
    ],
  };
  let hits = 0;
  let status = 200;
  const base = await loopbackServer(t, (_req, res) => {
    hits++;
    res.statusCode = status;
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify(catalog));
  });
  const s = await serverFor(t, { config: `[plugins]\nmarketplace_url = "${base}/catalog.json"\n` });
  t.is((await s.post('/api/v1/plugins', { source: await pluginFolder({ name: 'toolbox', version: '1.0.0' }) })).code, 0);

  const r = await s.get('/api/v1/plugins/marketplace');
  t.is(r.code, 0, JSON.stringify(r));
  t.deepEqual(r.data.entries.map((e: any) => e.id), ['toolbox', 'other']);
  t.like(r.data.entries[0], { installed: { version: '1.0.0', enabled: true }, updateAvailable: true, keywords: ['ci'], tier: 'official' });
  t.is(r.data.entries[1].installed, undefined);

  await s.post('/api/v1/plugins/toolbox:disable');
  catalog = [{ id: 'toolbox', tier: 'official', displayName: 'Toolbox', version: '1.0.0', source: 'x' }];
  const again = await s.get('/api/v1/plugins/marketplace');
  t.like(again.data.entries[0], { installed: { enabled: false }, updateAvailable: false });
  t.is(hits, 2, 'fetched on every request');

  status = 500;
  const failed = await s.get('/api/v1/plugins/marketplace');
  t.is(failed.code, 50001);
  t.regex(failed.msg, /HTTP 500/);
  status = 200;
  catalog = 'not a catalog';
  t.is((await s.get('/api/v1/plugins/marketplace')).code, 50001);
  // Over 5 MB: refused before the body is read into memory.
  catalog = { entries: [], padding: 'x'.repeat(6 * 1024 * 1024) };
  const big = await s.get('/api/v1/plugins/marketplace');
  t.is(big.code, 50001);
  t.regex(big.msg, /too large/);
});

test('an unreachable or non-https catalog is 50001', async (t) => {
  const s = await serverFor(t, { config: '[plugins]\nmarketplace_url = "http://127.0.0.1:9/catalog.json"\n' });
  t.is((await s.get('/api/v1/plugins/marketplace')).code, 50001);
  const s2 = await serverFor(t, { config: '[plugins]\nmarketplace_url = "http://example.com/catalog.json"\n' });
  const r = await s2.get('/api/v1/plugins/marketplace');
  t.is(r.code, 50001);
  t.regex(r.msg, /https/);
});

test('the default catalog (no marketplace_url in config.toml; its URL from SVC_CODE_MARKETPLACE_URL here) gains rows only for supported built-in capabilities: none today', async (t) => {
  const base = await loopbackServer(t, (_req, res) => {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ entries: [{ id: 'toolbox', tier: 'curated', displayName: 'Toolbox', source: 'https://example.com/acme/toolbox' }] }));
  });
  process.env.SVC_CODE_MARKETPLACE_URL = `${base}/catalog.json`;
  t.teardown(() => delete process.env.SVC_CODE_MARKETPLACE_URL);
  const s = await serverFor(t);
  const r = await s.get('/api/v1/plugins/marketplace');
  t.is(r.code, 0, JSON.stringify(r));
  t.deepEqual(r.data.entries.map((e: any) => e.id), ['toolbox']);
});
