import test from 'ava';
import { startLoginHarness } from '../helpers/login.ts';

// The config service reads SVC_MODEL_* when the server starts; nothing else in this process runs meanwhile.
test.serial('a SVC_MODEL_* temporary model makes models ready and counts as a provider', async (t) => {
  process.env.SVC_MODEL_NAME = 'tmp-model';
  process.env.SVC_MODEL_BASE_URL = 'http://127.0.0.1:9/v1';
  const h = await startLoginHarness().finally(() => {
    delete process.env.SVC_MODEL_NAME;
    delete process.env.SVC_MODEL_BASE_URL;
  });
  t.teardown(() => h.stop());
  t.deepEqual((await h.s.get('/api/v1/auth')).data, { models_ready: true, providers_count: 1, managed_provider: null });
});
