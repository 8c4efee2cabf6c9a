import test from 'ava';
import { newSession, serverFor, type TestServer } from '../helpers/server.ts';
import { outcomeText } from '../../src/questions/answers.ts';
import type { AskRequest } from '../../src/questions/service.ts';
import { until } from '../helpers/wait.ts';

const url = (sid: string) => `/api/v1/sessions/${sid}/questions`;
const opts = (...labels: string[]) => labels.map((label) => ({ label }));
const FOUR: AskRequest['questions'] = [
  { question: 'One?', options: opts('a', 'b') },
  { question: 'Many?', options: opts('a', 'b', 'c'), multi_select: true },
  { question: 'Free?', options: opts('a', 'b') },
  { question: 'Mixed?', options: opts('a', 'b', 'c', 'd'), multi_select: true },
];

async function setup(t: any): Promise<{ s: TestServer; sid: string }> {
  const s = await serverFor(t);
  return { s, sid: await newSession(s) };
}

function ask(s: TestServer, sid: string, questions = FOUR, signal?: AbortSignal) {
  return s.questions.ask(sid, { agentId: 'main', toolCallId: 'call_1', questions }, signal);
}

function pending(s: TestServer, sid: string) {
  return until(async () => (await s.get(`${url(sid)}?status=pending`)).data.items[0]);
}

const fieldsOf = (res: any): string[] => res.details.map((d: any) => d.field);

test('every answer kind is accepted and reaches the waiting call', async (t) => {
  const { s, sid } = await setup(t);
  const outcome = ask(s, sid);
  const q = await pending(s, sid);
  t.is((await s.get(`/api/v1/sessions/${sid}`)).data.pending_interaction, 'question');
  const answers = {
    q_0: { kind: 'single', option_id: 'o_1' },
    q_1: { kind: 'multi', option_ids: ['o_0', 'o_2'] },
    q_2: { kind: 'other', text: 'something else' },
    q_3: { kind: 'multi_with_other', option_ids: ['o_3'], other_text: 'plus this' },
  };
  const r = await s.post(`${url(sid)}/${q.question_id}`, { answers, method: 'number_key' });
  t.is(r.code, 0);
  const o = await outcome;
  t.is(o.kind, 'answered');
  const text = outcomeText(o);
  for (const line of ['"One?" -> b', '"Many?" -> a, c', '"Free?" -> Other: something else', '"Mixed?" -> d, Other: plus this']) t.true(text.includes(line), line);
  t.is((await s.get(`/api/v1/sessions/${sid}`)).data.pending_interaction, 'none');
});

test('skipped answers are accepted', async (t) => {
  const { s, sid } = await setup(t);
  const outcome = ask(s, sid, FOUR.slice(0, 1));
  const q = await pending(s, sid);
  t.is((await s.post(`${url(sid)}/${q.question_id}`, { answers: { q_0: { kind: 'skipped' } } })).code, 0);
  t.is((await outcome).kind, 'answered');
});

test('bad answers answer 40001 with the fields and leave the question pending', async (t) => {
  const { s, sid } = await setup(t);
  void ask(s, sid);
  const q = await pending(s, sid);
  const post = (answers: unknown) => s.post(`${url(sid)}/${q.question_id}`, { answers });
  const good = { q_1: { kind: 'multi', option_ids: ['o_0'] }, q_2: { kind: 'skipped' }, q_3: { kind: 'skipped' } };
  const missing = await post(good);
  t.is(missing.code, 40001);
  t.deepEqual(fieldsOf(missing), ['answers.q_0']);
  const unknownItem = await post({ ...good, q_0: { kind: 'skipped' }, q_9: { kind: 'skipped' } });
  t.deepEqual(fieldsOf(unknownItem), ['answers.q_9']);
  const unknownOption = await post({ ...good, q_0: { kind: 'single', option_id: 'o_7' } });
  t.is(unknownOption.code, 40001);
  t.deepEqual(fieldsOf(unknownOption), ['answers.q_0']);
  t.regex(unknownOption.details[0].message, /o_7/);
  t.is((await post({ ...good, q_0: { kind: 'skipped' }, q_1: { kind: 'multi', option_ids: [] } })).code, 40001);
  t.is((await post({ ...good, q_0: { kind: 'multi_with_other', option_ids: ['o_0'] } })).code, 40001);
  t.is((await post({ ...good, q_0: { kind: 'other' } })).code, 40001);
  t.is((await post({ ...good, q_0: { kind: 'maybe' } })).code, 40001);
  t.is((await s.post(`${url(sid)}/${q.question_id}`, {})).code, 40001);
  t.is((await s.post(`${url(sid)}/${q.question_id}`, { answers: { ...good, q_0: { kind: 'skipped' } }, method: 'shout' })).code, 40001);
  t.is((await s.get(`${url(sid)}?status=pending`)).data.items.length, 1);
});

test('list needs status=pending; unknown ids and actions', async (t) => {
  const { s, sid } = await setup(t);
  t.is((await s.get(url(sid))).code, 40001);
  t.is((await s.get(`${url(sid)}?status=answered`)).code, 40001);
  t.deepEqual((await s.get(`${url(sid)}?status=pending`)).data.items, []);
  t.is((await s.get(`${url('sess_nope')}?status=pending`)).code, 40401);
  t.is((await s.post(`${url(sid)}/qst_nope`, { answers: {} })).code, 40405);
  t.is((await s.post(`${url('sess_nope')}/qst_nope`, { answers: {} })).code, 40401);
  t.is((await s.post(`${url(sid)}/qst_nope:frobnicate`, {})).code, 40001);
});

test('a question past its timeout answers 41002 and the waiting call gets a timeout', async (t) => {
  const { s, sid } = await setup(t);
  const outcome = ask(s, sid);
  const q = await pending(s, sid);
  const later = new Date(Date.parse(q.created_at) + s.questions.timeoutMs + 1000);
  s.clock.set(later);
  const r = await s.post(`${url(sid)}/${q.question_id}`, { answers: { q_0: { kind: 'skipped' } } });
  t.is(r.code, 41002);
  t.deepEqual(await outcome, { kind: 'dismissed', reason: 'timed_out' });
  t.is((await s.post(`${url(sid)}/${q.question_id}:dismiss`, {})).code, 41002, 'a timed-out question stays timed out');
  t.is((await s.post(`${url(sid)}/${q.question_id}`, { answers: { q_0: { kind: 'skipped' } } })).code, 41002);
  t.is((await s.get(`/api/v1/sessions/${sid}`)).data.pending_interaction, 'none');
});

test('an answered question answers 40902 afterwards, not 41002', async (t) => {
  const { s, sid } = await setup(t);
  const outcome = ask(s, sid, [FOUR[0]!]);
  const q = await pending(s, sid);
  t.is((await s.post(`${url(sid)}/${q.question_id}:dismiss`, {})).code, 40909);
  await outcome;
  t.is((await s.post(`${url(sid)}/${q.question_id}`, { answers: { q_0: { kind: 'skipped' } } })).code, 40902);
});

test('a dismissal the journal refuses on abort reaches the waiting call as an error, not as a clean dismissal', async (t) => {
  const { s, sid } = await setup(t);
  const journal = s.journal;
  const append = journal.append.bind(journal);
  journal.append = (events: Parameters<typeof append>[0]) =>
    events.some((e) => e.type === 'event.question.dismissed') ? Promise.reject(new Error('disk full (test)')) : append(events);
  const ac = new AbortController();
  const outcome = ask(s, sid, FOUR, ac.signal);
  await pending(s, sid);
  ac.abort();
  const err = await t.throwsAsync(outcome);
  t.regex(err!.message, /could not be closed: disk full/);
});

test('an aborted turn dismisses its question', async (t) => {
  const { s, sid } = await setup(t);
  const ac = new AbortController();
  const outcome = ask(s, sid, FOUR, ac.signal);
  const q = await pending(s, sid);
  ac.abort();
  t.deepEqual(await outcome, { kind: 'dismissed', reason: 'turn_aborted' });
  const events = (await s.eventsOf(sid)).filter((e) => e.type === 'event.question.dismissed');
  t.like(events[0]!.payload, { question_id: q.question_id, reason: 'turn_aborted' });
  t.is((await s.get(`/api/v1/sessions/${sid}`)).data.pending_interaction, 'none');
});
