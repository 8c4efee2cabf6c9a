import test from 'ava';
import { scripts } from '../../fixtures/llm/index.ts';
import { journal, YOLO, startEngine, turnEnded, prompt, type EngineEnv } from '../helpers/engine.ts';
import { newSession } from '../helpers/server.ts';
import { toolCall as call } from '../contract/transcript-client.ts';

// A session's modes are read once (src/sessions/agent-settings.ts): the gate, GET /status, `turn.started`, the
// transcript's meta and the system prompt's plan-mode reminder agree, even on a stored value the gate cannot use.


async function sessionWith(env: EngineEnv, agentConfig: Record<string, unknown>): Promise<EngineEnv> {
  const sid = await newSession(env.s, { agent_config: agentConfig });
  await env.ws.request('subscribe', { session_ids: [sid] });
  return { ...env, sid };
}

test('an invalid stored permission_mode reads as the config default everywhere', async (t) => {
  const env = await sessionWith(await startEngine(t, { extraToml: YOLO }), { permission_mode: 'bogus' });
  t.is((await env.s.get(`/api/v1/sessions/${env.sid}/status`)).data.permission, 'yolo');

  // The gate: yolo runs the Write without an approval.
  env.llm.setScript(call('w1', 'Write', { file_path: 'a.txt', content: 'a\n' }), scripts.helloText);
  t.is((await prompt(env, 'write')).code, 0);
  t.is((await turnEnded(env)).payload.reason, 'completed');
  const events = await journal(env);
  t.false(events.some((e) => e.type === 'event.approval.requested'));
  t.is(events.find((e) => e.type === 'turn.started')!.payload.permission_mode, 'yolo');
  const transcript = (await env.s.get(`/api/v1/sessions/${env.sid}/transcript?agent_id=main`)).data;
  t.is(transcript.meta.agent.permission, 'yolo');
  t.is((await env.s.get(`/api/v1/sessions/${env.sid}/status`)).data.permission, 'yolo');
});

test('default_plan_mode = true is plan mode everywhere: status, turn.started and the system prompt reminder', async (t) => {
  const env = await startEngine(t, { extraToml: `${YOLO}\ndefault_plan_mode = true` });
  t.true((await env.s.get(`/api/v1/sessions/${env.sid}/status`)).data.plan_mode);
  env.llm.setScript(scripts.helloText);
  await prompt(env, 'plan it');
  await turnEnded(env);
  t.true((await journal(env)).find((e) => e.type === 'turn.started')!.payload.plan_mode);
  const system = (env.llm.requests[0]!.body as any).messages.find((m: any) => m.role === 'system').content;
  t.regex(system, /<system-reminder>Plan mode is on/);
});
