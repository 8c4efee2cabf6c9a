import test from 'ava';
import type { Asked } from '../../fixtures/llm/responder.ts';
import type { Reply } from '../../fixtures/llm/index.ts';
import { lastMessage } from '../../fixtures/llm/scripts/long-session.ts';
import { journalOf, overflowReply, PROTOCOLS, runTurns, sentText, windowSession, type WindowProtocol } from '../helpers/context-window.ts';
import { restTranscript } from '../contract/transcript-client.ts';

// The provider refuses a request as too long (its own 400, in each protocol's words) although the engine's
// estimate let it go: the engine compacts once and retries the step, visibly; refused again, the turn fails
// with a clear error after exactly one compaction (no retry storm).

const WINDOW = 200_000;
const isSummary = (a: Asked) => lastMessage(a).text.includes('Your context window is being compacted');
const say = (text: string): Reply => ({ events: [{ text }], usage: { input: 50, output: 5 } });
const notices = (d: any) => d.items.filter((i: any) => i.kind === 'marker' && i.marker === 'notice').map((i: any) => i.payload);

/** Answers "answer: <prompt>"; summaries "SUMMARY-OF-EARLIER"; refuses the step requests `refuse` picks. */
function play(protocol: WindowProtocol, refuse: (a: Asked) => boolean) {
  const asked: Array<{ kind: 'summary' | 'step' | 'refused'; body: any }> = [];
  const respond = (a: Asked): Reply => {
    if (isSummary(a)) {
      asked.push({ kind: 'summary', body: a.body });
      return say('SUMMARY-OF-EARLIER');
    }
    if (refuse(a)) {
      asked.push({ kind: 'refused', body: a.body });
      return overflowReply(protocol, WINDOW, WINDOW + 5000);
    }
    asked.push({ kind: 'step', body: a.body });
    return say(`answer: ${lastMessage(a).text.split('\n').at(-1)}`);
  };
  return { asked, respond };
}

for (const protocol of PROTOCOLS) {
  test(`${protocol}: the provider's context-length error compacts once and retries the step, with a warning notice`, async (t) => {
    let refused = 0;
    const p = play(protocol, (a) => lastMessage(a).text.endsWith('third question') && refused++ === 0);
    const env = await windowSession(t, { protocol, window: WINDOW, respond: p.respond });
    const ended = await runTurns(env, ['first question', 'second question', 'third question']);
    t.deepEqual(ended.map((e) => e.reason), ['completed', 'completed', 'completed']);
    const j = await journalOf(env);
    t.deepEqual(p.asked.map((x) => x.kind), ['step', 'step', 'refused', 'summary', 'step'], JSON.stringify(j.filter((e) => e.type.startsWith('turn.step') || e.type.startsWith('compaction')).map((e) => [e.type, e.payload.error])));
    // The retried request carries the summary and the turn's prompt, not the earlier turns.
    const retried = sentText(p.asked[4]!.body);
    t.regex(retried, /SUMMARY-OF-EARLIER[\s\S]*third question/);
    t.notRegex(retried, /first question|second question/);

    const events = await journalOf(env);
    const third = events.filter((e) => e.type === 'turn.started').at(-1)!.payload.turn_id;
    const inTurn = events.slice(events.findIndex((e) => e.payload?.turn_id === third));
    const kinds = inTurn.map((e) => e.type).filter((x) => /^(turn\.step\.|compaction\.)/.test(x));
    t.deepEqual(kinds, ['turn.step.started', 'turn.step.retrying', 'compaction.started', 'compaction.completed', 'turn.step.completed'], JSON.stringify(inTurn.filter((e) => e.type === 'turn.step.retrying').map((e) => e.payload.error)));
    const retrying = inTurn.find((e) => e.type === 'turn.step.retrying')!.payload;
    t.like(retrying, { step: 1, attempt: 1, next_attempt: 2, delay_ms: 0, error: { kind: 'context_overflow', status: 400 } });
    t.is(inTurn.find((e) => e.type === 'compaction.started')!.payload.trigger, 'auto');

    // The client sees a warning notice (spec/clients.md B6) and the compaction marker; the turn is not failed.
    const d = await restTranscript(env.s, env.sid);
    t.like(notices(d).find((n: any) => n.event.name === 'context_overflow'), { level: 'warning', event: { code: 'context_overflow', retryable: true, details: { statusCode: 400 } } });
    t.truthy(d.items.find((i: any) => i.kind === 'marker' && i.marker === 'compaction' && i.payload.phase === 'completed'));
  });

  test(`${protocol}: refused again after the compaction, the turn fails with a clear error and no retry storm`, async (t) => {
    const p = play(protocol, (a) => lastMessage(a).text.endsWith('second question'));
    const env = await windowSession(t, { protocol, window: WINDOW, respond: p.respond });
    const ended = await runTurns(env, ['first question', 'second question']);
    t.is(ended[1].reason, 'failed');
    t.like(ended[1].error, { kind: 'context_overflow', status: 400 });
    t.regex(ended[1].error.message, /still exceeds the model's context window after compaction/);
    // One refused request, one compaction, one retry refused: nothing more.
    t.deepEqual(p.asked.map((x) => x.kind), ['step', 'refused', 'summary', 'refused']);
    const events = await journalOf(env);
    t.is(events.filter((e) => e.type === 'turn.step.retrying').length, 1);
    t.is(events.filter((e) => e.type === 'compaction.completed').length, 1);
    t.like(events.find((e) => e.type === 'turn.step.interrupted')!.payload, { reason: 'failed', error: { kind: 'context_overflow' } });
  });
}

test('chat: when the compaction itself fails, the refused step fails the turn with the reason', async (t) => {
  const p = play('chat', (a) => lastMessage(a).text.endsWith('second question'));
  const respond = (a: Asked): Reply => (isSummary(a) ? { kind: 'error', status: 400, message: 'bad summary request' } : p.respond(a));
  const env = await windowSession(t, { protocol: 'chat', window: WINDOW, respond });
  const ended = await runTurns(env, ['first question', 'second question']);
  t.is(ended[1].reason, 'failed');
  t.regex(ended[1].error.message, /exceeds the model's context window and the context could not be compacted/);
  const events = await journalOf(env);
  t.like(events.find((e) => e.type === 'compaction.failed')!.payload, { error: { kind: 'bad_request' } });
  t.is(events.filter((e) => e.type === 'turn.step.retrying').length, 1);
});
