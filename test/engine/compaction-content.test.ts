import test, { type ExecutionContext } from 'ava';
import type { Asked } from '../../fixtures/llm/responder.ts';
import type { Reply } from '../../fixtures/llm/index.ts';
import { lastMessage, linesFor, longSession } from '../../fixtures/llm/scripts/long-session.ts';
import { journalOf, runTurns, windowSession, type WindowEnv } from '../helpers/context-window.ts';
import { until } from '../helpers/wait.ts';

// What a compaction keeps and how it fits: a history larger than the compaction model's window is summarized
// in parts, then the part summaries merged; the recent turns stay verbatim (every kept tool call with its result);
// the running turn's large results are cut with a note; the todo list and the last plan survive; subagents and
// :btw agents compact their own histories. All on a 32,000-token model behind the window rule.

const WINDOW = 32_000;
const ASK = 'Your context window is being compacted';
const say = (text: string): Reply => ({ events: [{ text }], usage: { input: 50, output: 5 } });
const offered = (a: Asked): string[] => (a.body?.tools ?? []).map((x: any) => x.function?.name ?? x.name);
const CUT_NOTE = /characters of this tool result were cut when the context was compacted/;

/** The chat request's messages after the system prompt. */
const chatMessages = (body: any): any[] => (body.messages as any[]).filter((m) => m.role !== 'system');

/** Every assistant tool call of a chat request has its tool message, and every tool message its call. */
function paired(body: any): boolean {
  const calls = chatMessages(body).flatMap((m) => (m.tool_calls ?? []).map((c: any) => c.id));
  const results = chatMessages(body).filter((m) => m.role === 'tool').map((m) => m.tool_call_id);
  return calls.length === results.length && calls.every((id: string) => results.includes(id));
}

async function seed(env: WindowEnv, turns: number, chars: number, agentId = 'main'): Promise<void> {
  const now = new Date().toISOString();
  const msg = (id: string, role: 'user' | 'assistant', text: string) => ({
    stream: env.sid, type: 'message.created' as const, payload: { agent_id: agentId, message: { id, session_id: env.sid, role, content: [{ type: 'text' as const, text }], created_at: now } },
  });
  const events = [];
  for (let i = 1; i <= turns; i++) events.push(msg(`msg_seed${i}q`, 'user', `old question ${i}`), msg(`msg_seed${i}a`, 'assistant', `old answer ${i} ${'lorem ipsum '.repeat(chars / 12)}`));
  await env.s.journal.append(events);
}

test('a history larger than the compaction model\'s window is summarized in parts, then the parts merged; each request fits', async (t) => {
  const asked: string[] = [];
  const respond = (a: Asked): Reply => {
    const text = lastMessage(a).text;
    const part = /below is part (\d+) of (\d+)/.exec(text);
    if (part) asked.push(`part ${part[1]}/${part[2]}`);
    else if (text.includes('summaries of consecutive parts')) asked.push('merge');
    else asked.push(text.includes(ASK) ? 'whole' : 'step');
    if (part) return say(`PART-SUMMARY-${part[1]}`);
    if (text.includes(ASK)) return say('MERGED-SUMMARY');
    return say('answer');
  };
  const env = await windowSession(t, { protocol: 'chat', window: WINDOW, respond });
  // About 48,000 tokens of history on a 32,000-token model.
  await seed(env, 12, 16_000);
  t.is((await env.s.post(`/api/v1/sessions/${env.sid}:compact`, {})).code, 0);
  const done = await env.ws.waitFor((f) => f.type === 'compaction.completed' || f.type === 'compaction.failed', 60_000);
  t.is(done.type, 'compaction.completed', JSON.stringify(done.payload));
  const parts = asked.filter((x) => x.startsWith('part'));
  t.true(parts.length >= 2, asked.join(', '));
  t.deepEqual(asked, [...parts.map((_, i) => `part ${i + 1}/${parts.length}`), 'merge']);
  t.is(done.payload.summary_requests, parts.length + 1);
  t.is(done.payload.replaced_messages, 24);
  // No summary request was refused by the window rule (a refusal is an error reply, never a summary).
  t.true(env.llm.requests.every((r) => r.body.messages.length === 1));
  // The merged parts are what the agent continues from.
  await until(async () => (await env.s.get(`/api/v1/sessions/${env.sid}/status`)).data.busy === false, 15_000);
  await runTurns(env, ['next question']);
  const next = JSON.stringify(env.llm.requests.at(-1)!.body.messages);
  t.regex(next, /MERGED-SUMMARY[\s\S]*next question/);
  t.notRegex(next, /old question|PART-SUMMARY/);
});

test('after an automatic compaction the recent turns stay verbatim, every kept tool call with its result, also after a restart', async (t) => {
  const play = longSession({ outputBytes: 6000 });
  const env = await windowSession(t, { protocol: 'chat', window: WINDOW, respond: play.respond });
  const prompts = Array.from({ length: 14 }, (_, i) => `turn ${i + 1}: run the command`);
  const ended = await runTurns(env, prompts);
  t.true(ended.every((e) => e.reason === 'completed'));
  const events = await journalOf(env);
  const first = events.find((e) => e.type === 'compaction.completed')!;
  t.truthy(first, 'the session compacted');
  t.true(first.payload.kept_messages >= 4, `kept ${first.payload.kept_messages}`);
  // The first request after the compaction: the summary, then whole turns, as they were.
  const at = env.llm.requests.findIndex((r) => JSON.stringify(r.body.messages).includes('[Summary of the earlier conversation'));
  const after = env.llm.requests[at]!.body;
  t.true(paired(after));
  const outputs = chatMessages(after).filter((m) => m.role === 'tool').map((m) => String(m.content));
  t.true(outputs.length >= 1);
  for (const out of outputs) {
    const turn = /turn (\d+) step 1 line 00001/.exec(out)![1];
    t.true(out.includes(`turn ${turn} step 1 line ${String(linesFor(6000)).padStart(5, '0')}`), 'the whole output, to its last line');
    t.notRegex(out, CUT_NOTE);
  }
  t.regex(JSON.stringify(chatMessages(after)[0]), /Summary of the earlier conversation/);
  t.notRegex(JSON.stringify(after.messages), /turn 1 step 1 line/);

  // Replayed from the journal, the context is the same: the next request holds the same kept turns.
  const sent = JSON.stringify(chatMessages(env.llm.requests.at(-1)!.body).slice(0, -1));
  const s2 = await env.s.restart();
  t.teardown(() => s2.stop());
  const env2 = { ...env, s: s2, ws: await s2.ws() };
  t.teardown(() => env2.ws.close());
  await env2.ws.request('subscribe', { session_ids: [env.sid] });
  await runTurns(env2, ['turn 15: once more']);
  const replayed = chatMessages([...env.llm.requests].reverse().find((r) => JSON.stringify(r.body.messages).includes('turn 15: once more'))!.body);
  t.true(JSON.stringify(replayed).startsWith(sent.slice(0, -1)), 'the context after the restart starts as it was before');
});

test('a turn whose own tool results outgrow the window keeps them, cut with a note, each call with its result', async (t) => {
  const play = longSession({ outputBytes: 20_000, steps: 5 });
  const env = await windowSession(t, { protocol: 'chat', window: WINDOW, respond: play.respond });
  const ended = await runTurns(env, ['turn 1: run five commands']);
  t.is(ended[0].reason, 'completed', JSON.stringify(ended[0].error));
  const events = await journalOf(env);
  const done = events.filter((e) => e.type === 'compaction.completed');
  t.true(done.length >= 1);
  t.true(done.some((d) => (d.payload.truncated_results ?? []).length > 0));
  const at = env.llm.requests.findIndex((r) => JSON.stringify(r.body.messages).includes('[Summary of the earlier conversation'));
  const after = env.llm.requests[at]!.body;
  t.true(paired(after));
  const outputs = chatMessages(after).filter((m) => m.role === 'tool').map((m) => String(m.content));
  t.true(outputs.some((o) => CUT_NOTE.test(o)));
  // The cut keeps the head and the tail of each output.
  for (const o of outputs.filter((x) => CUT_NOTE.test(x))) t.regex(o, new RegExp(`line 00001[\\s\\S]*cut when[\\s\\S]*line ${String(linesFor(20_000)).padStart(5, '0')}`));
});

/** `:compact` the session, then wait for its n-th compaction to be journaled and the session idle again. */
async function compactAndWait(t: ExecutionContext, env: Awaited<ReturnType<typeof windowSession>>, n: number): Promise<void> {
  t.is((await env.s.post(`/api/v1/sessions/${env.sid}:compact`, {})).code, 0);
  await until(async () => (await journalOf(env)).filter((e) => e.type === 'compaction.completed').length === n, 15_000);
  await until(async () => (await env.s.get(`/api/v1/sessions/${env.sid}/status`)).data.busy === false, 15_000);
}

test('the todo list survives compaction, twice (carried in the summary)', async (t) => {
  const todos = [{ content: 'Write the parser', status: 'in_progress' }, { content: 'Add the tests', status: 'pending' }];
  let summaries = 0;
  const respond = (a: Asked): Reply => {
    const last = lastMessage(a);
    if (last.text.includes(ASK)) return say(`SUMMARY ${++summaries}`);
    if (last.role === 'tool') return say('list written');
    if (last.text.endsWith('plan it')) return { events: [{ tool_call: { id: 'todo_1', name: 'TodoWrite', args: { todos } } }] };
    return say('ok');
  };
  const env = await windowSession(t, { protocol: 'chat', window: WINDOW, respond });
  const compact = (n: number) => compactAndWait(t, env, n);
  await runTurns(env, ['plan it']);
  await compact(1);
  await runTurns(env, ['go on']);
  const list = /Your todo list[^\]]*\[in_progress\] Write the parser[\s\S]*\[pending\] Add the tests/;
  t.regex(String(chatMessages(env.llm.requests.at(-1)!.body)[0].content), list);
  // The second compaction replaces the first summary (no TodoWrite left in the context): the list is carried again.
  await compact(2);
  await runTurns(env, ['and again']);
  const context = chatMessages(env.llm.requests.at(-1)!.body);
  t.regex(String(context[0].content), /SUMMARY 2[\s\S]*Your todo list/);
  t.regex(String(context[0].content), list);
  const summary = (await journalOf(env)).filter((e) => e.type === 'message.created' && e.payload.message.metadata?.compaction).at(-1)!;
  t.deepEqual(summary.payload.message.metadata.compaction.carried, { todos });
});

test('the plan presented with ExitPlanMode survives compaction, twice (carried in the summary)', async (t) => {
  const plan = '# Plan\n\n1. Split the parser into lexer and grammar\n2. Cover the edge cases with tests';
  let summaries = 0;
  const respond = (a: Asked): Reply => {
    const last = lastMessage(a);
    if (last.text.includes(ASK)) return say(`SUMMARY ${++summaries}`);
    if (last.role === 'tool') return say('plan approved');
    if (last.text.endsWith('plan it')) return { events: [{ tool_call: { id: 'plan_1', name: 'ExitPlanMode', args: { plan } } }] };
    return say('ok');
  };
  const env = await windowSession(t, { protocol: 'chat', window: WINDOW, respond, extraToml: 'default_plan_mode = true' });
  const compact = (n: number) => compactAndWait(t, env, n);
  // The plan review is an approval: the user approves it while the turn waits.
  const turn = runTurns(env, ['plan it']);
  const review = await until(async () => (await env.s.get(`/api/v1/sessions/${env.sid}/approvals?status=pending`)).data.items[0], 30_000, 'the plan review');
  t.is((await env.s.post(`/api/v1/sessions/${env.sid}/approvals/${review.approval_id}`, { decision: 'approved', selected_label: 'Approve' })).code, 0);
  t.is((await turn).at(-1).reason, 'completed');
  await compact(1);
  await runTurns(env, ['go on']);
  const carried = /The plan you last presented with ExitPlanMode:\n# Plan\n\n1\. Split the parser into lexer and grammar\n2\. Cover the edge cases with tests/;
  t.regex(String(chatMessages(env.llm.requests.at(-1)!.body)[0].content), carried);
  // The second compaction replaces the first summary (no ExitPlanMode call left in the context): the plan is carried again.
  await compact(2);
  await runTurns(env, ['and again']);
  const context = chatMessages(env.llm.requests.at(-1)!.body);
  t.regex(String(context[0].content), /SUMMARY 2[\s\S]*The plan you last presented/);
  t.regex(String(context[0].content), carried);
  const summary = (await journalOf(env)).filter((e) => e.type === 'message.created' && e.payload.message.metadata?.compaction).at(-1)!;
  t.deepEqual(summary.payload.message.metadata.compaction.carried, { plan });
});

test('a subagent compacts its own history on its model\'s window and completes', async (t) => {
  let subSteps = 0;
  const respond = (a: Asked): Reply => {
    const last = lastMessage(a);
    if (last.text.includes(ASK)) return say('SUB-SUMMARY');
    if (!offered(a).includes('Agent')) {
      subSteps++;
      if (subSteps > 6) return say('sub done');
      return { events: [{ tool_call: { id: `sub_${subSteps}`, name: 'Bash', args: { command: `seq -f 'sub ${subSteps} line %05g the quick brown fox jumps over the lazy dog' 1 300` } } }] };
    }
    if (last.role === 'tool') return say('main done');
    return { events: [{ tool_call: { id: 'agent_1', name: 'Agent', args: { description: 'print a lot', prompt: 'Run six commands that print a lot.' } } }] };
  };
  const env = await windowSession(t, { protocol: 'chat', window: WINDOW, respond });
  const ended = await runTurns(env, ['delegate it'], 120_000);
  t.is(ended[0].reason, 'completed');
  const events = await journalOf(env);
  const agentId = events.find((e) => e.type === 'subagent.spawned')!.payload.agent_id;
  const compactions = events.filter((e) => e.type === 'compaction.completed');
  t.true(compactions.length >= 1);
  t.true(compactions.every((c) => c.payload.agent_id === agentId), 'only the subagent compacted');
  t.like(events.find((e) => e.type === 'subagent.completed')!.payload, { agent_id: agentId, result: 'sub done' });
  t.is(subSteps, 7);
});

test('a :btw agent compacts its own history (the fork of a large main history), also after a restart', async (t) => {
  let summaries = 0;
  const respond = (a: Asked): Reply => {
    const last = lastMessage(a);
    if (last.text.includes(ASK)) return say(`BTW-SUMMARY ${++summaries}`);
    return say(`btw answer to ${last.text.split('\n').at(-1)}`);
  };
  const env = await windowSession(t, { protocol: 'chat', window: WINDOW, respond });
  await seed(env, 8, 12_000);
  const agentId = (await env.s.post(`/api/v1/sessions/${env.sid}:btw`, {})).data.agent_id as string;
  const ask = async (e: WindowEnv, text: string) => {
    t.is((await e.s.post(`/api/v1/sessions/${env.sid}/prompts`, { content: [{ type: 'text', text }], agent_id: agentId })).code, 0);
    await e.ws.waitFor((f) => f.type === 'turn.ended' && f.payload.agent_id === agentId && e.ws.frames.filter((x) => x.type === 'turn.ended' && x.payload.agent_id === agentId).indexOf(f) === 0, 60_000);
  };
  await ask(env, 'a side question');
  const events = await journalOf(env);
  const done = events.find((e) => e.type === 'compaction.completed')!;
  t.like(done.payload, { agent_id: agentId });
  t.is(events.filter((e) => e.type === 'turn.ended' && e.payload.agent_id === agentId).at(-1)!.payload.reason, 'completed');
  const first = JSON.stringify(env.llm.requests.at(-1)!.body.messages);
  t.regex(first, /BTW-SUMMARY 1[\s\S]*a side question/);
  t.false(first.includes('old question 1"'), 'the oldest turns are in the summary');

  // Rebuilt after a restart: the fork prefix, then its own compaction replayed over it.
  const s2 = await env.s.restart();
  t.teardown(() => s2.stop());
  const env2 = { ...env, s: s2, ws: await s2.ws() };
  t.teardown(() => env2.ws.close());
  await env2.ws.request('subscribe', { session_ids: [env.sid] });
  await ask(env2, 'another side question');
  const next = JSON.stringify(env.llm.requests.at(-1)!.body.messages);
  t.regex(next, /BTW-SUMMARY 1[\s\S]*a side question[\s\S]*another side question/);
  t.false(next.includes('old question 1"'));
});
