import test from 'ava';
import { scripts } from '../../fixtures/llm/index.ts';
import { prompt, YOLO } from '../helpers/engine.ts';
import { until } from '../helpers/wait.ts';
import { opsOf, restTranscript, sameAsRest, transcriptIdle, watchedEngine } from './transcript-client.ts';

// spec/clients.md B6 `notice` markers at level warning, for the conditions this daemon meets: a retried model
// request, an answer cut at the output-token limit, a failed hook, a failed compaction. Each reaches the client as a
// marker.upsert; the store equals GET /transcript, and a fold of the journal (after a restart) has the same markers.

const notices = (d: any) => d.items.filter((i: any) => i.kind === 'marker' && i.marker === 'notice').map((i: any) => i.payload);
const hookToml = '[[hooks]]\nevent = "PreToolUse"\ncommand = "kill -9 $$"';

test('warning notices: a retried request, a truncated answer, a failed hook, a failed compaction', async (t) => {
  const env = await watchedEngine(t, { extraToml: `${YOLO}\n${hookToml}` });
  const { s, sid, c } = env;

  env.llm.setScript(scripts.serverError, scripts.helloText);
  await prompt(env, 'retry me');
  await transcriptIdle(s, sid);
  let d = await sameAsRest(t, c, s, sid, 'a retried request');
  t.like(notices(d)[0], {
    level: 'warning', source: 'llm', event: { code: 'transient', name: 'step_retrying', retryable: true, details: { statusCode: 503, attempt: 1, nextAttempt: 2 } },
  });
  t.regex(notices(d)[0].message, /upstream overloaded \(retrying: attempt 2/);
  t.is(d.items.find((i: any) => i.kind === 'turn').state, 'completed', 'a warning, not a failure');

  env.llm.setScript(scripts.truncated);
  await prompt(env, 'cut me');
  await transcriptIdle(s, sid);
  d = await sameAsRest(t, c, s, sid, 'a truncated answer');
  t.like(notices(d)[1], { level: 'warning', event: { code: 'length', name: 'output_truncated', retryable: false } });

  env.llm.setScript({ events: [{ tool_call: { id: 'h1', name: 'Bash', args: { command: 'true' } } }] }, scripts.helloText);
  await prompt(env, 'hooked');
  await transcriptIdle(s, sid);
  d = await sameAsRest(t, c, s, sid, 'a failed hook');
  t.like(notices(d)[2], { level: 'warning', source: 'hook', event: { code: 'error', name: 'hook_failed', details: { hookEvent: 'PreToolUse' } } });
  t.regex(notices(d)[2].message, /^PreToolUse hook failed.*kill -9/);

  env.llm.setScript(scripts.badRequest);
  t.is((await s.post(`/api/v1/sessions/${sid}:compact`, {})).code, 0);
  await until(async () => notices(await restTranscript(s, sid)).length === 4 || undefined, 30_000);
  d = await sameAsRest(t, c, s, sid, 'a failed compaction');
  t.like(notices(d)[3], { level: 'warning', source: 'compaction', event: { name: 'compaction_failed', retryable: false } });
  t.regex(notices(d)[3].message, /^Compaction failed: /);
  t.true(notices(d).every((n: any) => n.level === 'warning'), 'no error notice: no turn failed');
  t.is(opsOf(c).filter((o) => o.op === 'marker.upsert' && o.item.marker === 'notice').length, 4);

  await c.ws.close();
  const s2 = await s.restart();
  t.teardown(() => s2.stop());
  t.deepEqual(notices(await restTranscript(s2, sid)), notices(d), 'a fold of the journal has the same notices');
});
