import test from 'ava';
import { scripts } from '../../fixtures/llm/index.ts';
import { JournalEncodeError } from '../../journal/errors.ts';
import type { NewStreamEvent } from '../../protocol/events/registry.ts';
import { journal as journalOf, prompt, startEngine, turnEnded, type EngineEnv } from '../helpers/engine.ts';

/** Makes the journal refuse (as for a record it cannot encode) every append carrying `type`. */
function refuse(env: EngineEnv, type: string): void {
  const journal = env.s.journal;
  const append = journal.append.bind(journal);
  journal.append = (pending: NewStreamEvent[]) =>
    pending.some((e) => e.type === type) ? Promise.reject(new JournalEncodeError(`e!${type}`, new Error('refused by the test'))) : append(pending);
}

const color = { question: 'Which color?', options: [{ label: 'red' }, { label: 'blue' }] };

for (const [kind, type, call, list] of [
  ['approval', 'event.approval.requested', { id: 'b1', name: 'Bash', args: { command: 'true' } }, 'approvals'],
  ['question', 'event.question.requested', { id: 'q1', name: 'AskUserQuestion', args: { questions: [color] } }, 'questions'],
] as const) {
  test(`a refused ${kind} request leaves nothing pending: none listed, the session not waiting, the turn ends`, async (t) => {
    const env = await startEngine(t, { extraToml: 'default_permission_mode = "manual"' });
    refuse(env, type);
    env.llm.setScript({ events: [{ tool_call: call }] }, scripts.helloText);
    t.is((await prompt(env, 'go')).code, 0);
    await turnEnded(env, 1, 30_000);
    t.deepEqual((await env.s.get(`/api/v1/sessions/${env.sid}/${list}?status=pending`)).data.items, []);
    t.is((await env.s.get(`/api/v1/sessions/${env.sid}`)).data.pending_interaction, 'none');
  });
}

test('a refused prompt.accepted answers 40001 and leaves nothing: no turn runs on it, nothing of it is journaled, the next prompt works', async (t) => {
  const env = await startEngine(t);
  const journal = env.s.journal;
  const appendNow = journal.appendNow.bind(journal);
  let first = true;
  journal.appendNow = (pending: NewStreamEvent[]) => {
    if (first && pending.some((e) => e.type === 'prompt.accepted')) {
      first = false;
      throw new JournalEncodeError('e!prompt.accepted', new Error('refused by the test'));
    }
    return appendNow(pending);
  };
  env.llm.setScript(scripts.helloText);
  const refused = await prompt(env, 'first');
  t.is(refused.code, 40001);
  t.deepEqual((await env.s.get(`/api/v1/sessions/${env.sid}/prompts`)).data, { active: null, queued: [] });
  t.is((await prompt(env, 'second')).code, 0);
  t.is((await turnEnded(env, 1, 30_000)).payload.reason, 'completed');
  const texts = (await journalOf(env)).filter((e) => e.type === 'message.created').map((e) => JSON.stringify(e.payload.message.content));
  t.false(texts.some((x) => x.includes('first')));
  t.true(texts.some((x) => x.includes('second')));
  t.is(env.s.sessions.get(env.sid)!.last_prompt, 'second');
});
