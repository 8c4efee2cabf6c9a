import test from 'ava';
import { collect, userSays } from '../../../fixtures/llm/collect.ts';
import type { Reply } from '../../../fixtures/llm/script.ts';
import { fixtureClient } from '../../../fixtures/llm/wire-clients.ts';
import { WIRE_TYPES } from '../../../src/providers/wire/types.ts';
import { fixtureLlm } from '../../helpers/llm.ts';

const MODEL = { model: 'gemini-3-pro' };

/** Gemini's ordinary rate limit: status RESOURCE_EXHAUSTED, a message that mentions quota without saying it is used up. */
const resourceExhausted: Reply = { kind: 'error', status: 429, message: 'Resource has been exhausted (e.g. check quota).' };
const balanceExhausted: Reply = { kind: 'error', status: 429, message: 'Your credit balance is too low to access the API' };

for (const type of WIRE_TYPES) {
  test(`${type}: an ordinary 429 ("Resource has been exhausted (e.g. check quota)") is transient, so it is retried`, async (t) => {
    const f = await fixtureLlm(t);
    f.setScript(resourceExhausted);
    const c = await collect(fixtureClient(f.url, type, {}, MODEL), userSays('hi'));
    t.like(c.error, { kind: 'transient', status: 429 });
  });

  test(`${type}: a 429 that says the balance is exhausted is quota (final)`, async (t) => {
    const f = await fixtureLlm(t);
    f.setScript(balanceExhausted);
    const c = await collect(fixtureClient(f.url, type, {}, MODEL), userSays('hi'));
    t.like(c.error, { kind: 'quota', status: 429 });
  });
}
