import test from 'ava';
import { readFile, readdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { scripts } from '../../fixtures/llm/index.ts';
import pino from 'pino';
import { firstDivergence, normalize, NOT_COMPARED } from '../../src/replay/compare.ts';
import { replaySession } from '../../src/replay/run.ts';
import { readSettings } from '../../src/app/settings.ts';
import { exportZip, recordSession } from '../helpers/archive.ts';
import { cli } from '../helpers/cli.ts';
import { journal, prompt, startEngine } from '../helpers/engine.ts';
import { YOLO, agentCall, say, turnEnded } from '../helpers/subagents.ts';
import { tempHome } from '../helpers/server.ts';
import { freshDatabase, sql } from '../helpers/pg.ts';


test('svc-code replay: a recorded session replays with no divergence; a changed file diverges at the Bash result', async (t) => {
  t.timeout(180_000); // five CLI runs, each a node start with tsx
  // Recorded against the fixture LLM over HTTP: a Write (approved), a text turn, a Bash that reads data.txt (approved).
  const r = await recordSession(t);
  await writeFile(path.join(r.cwd, 'data.txt'), 'alpha\n');
  r.llm.setScript({ events: [{ tool_call: { id: 'b1', name: 'Bash', args: { command: 'cat data.txt' } } }] }, scripts.helloText);
  await r.s.post(`/api/v1/sessions/${r.sid}/prompts`, { content: [{ type: 'text', text: 'read the data' }] });
  const asked = await r.ws.waitFor((f) => f.type === 'event.approval.requested' && f.payload.tool_call_id === 'b1', 30_000);
  await r.s.post(`/api/v1/sessions/${r.sid}/approvals/${asked.payload.approval_id}`, { decision: 'approved' });
  await r.ws.waitFor((f) => f.type === 'turn.ended' && r.ws.frames.filter((x) => x.type === 'turn.ended').length === 3, 30_000);
  const zipFile = path.join(await tempHome(), 'export.zip');
  await writeFile(zipFile, await exportZip(r.s, r.sid));
  const recorded = await r.s.eventsOf(r.sid);
  const bashResult = recorded.find((e) => e.type === 'tool.result' && (e.payload as { tool_call_id: string }).tool_call_id === 'b1')!;
  const home = await tempHome(); // the CLI's own home is never used by a replay
  // The replays' temp dir, to see that each removes its temp home.
  const tmp = await tempHome();
  t.teardown(() => rm(tmp, { recursive: true, force: true }));
  const run = (args: string[]) => cli(home, ['replay', ...args], { TMPDIR: tmp });

  // --tools live in a scratch copy of the workspace as it is now (notes.txt, written by the session, is rolled back).
  const live = await run([zipFile, '--tools', 'live', '--json']);
  t.is(live.code, 0, live.stdout + live.stderr);
  const report = JSON.parse(live.stdout);
  t.like(report, {
    session_id: r.sid, tools: 'live', home: null, stopped: null, divergence: null,
    turns: { recorded: 3, replayed: 3 }, model_answers: { recorded: 5, served: 5 }, workspace: { source: r.cwd },
  });
  t.is(report.events.recorded, recorded.length);
  t.true(report.events.compared > 40);

  // The file the recorded Bash read has other content: the first divergence is that Bash call's result.
  await writeFile(path.join(r.cwd, 'data.txt'), 'beta\n');
  const changed = await run([zipFile, '--tools', 'live', '--json']);
  t.is(changed.code, 1, changed.stderr);
  const d = JSON.parse(changed.stdout).divergence;
  t.like(d, { field: 'payload.content', expected: { seq: bashResult.seq, type: 'tool.result' }, got: { type: 'tool.result' } });
  t.is(d.expected.payload.content, 'alpha\n[exit code 0]');
  t.is(d.got.payload.content, 'beta\n[exit code 0]');
  t.is(d.index, recorded.slice(0, bashResult.seq - 1).filter((e) => !NOT_COMPARED.has(e.type)).length);
  const text = await run([zipFile, '--tools', 'live']);
  t.is(text.code, 1);
  t.regex(text.stdout, new RegExp(`first divergence at compared event ${d.index}: tool\\.result \\(recorded seq ${bashResult.seq}\\)`));
  t.regex(text.stdout, /expected: .*alpha\\n\[exit code 0\]/);

  // --tools record (the default) answers Bash and Write from the record: the changed file does not matter.
  const rec = await run([zipFile, '--json']);
  t.is(rec.code, 0, rec.stdout + rec.stderr);
  t.like(JSON.parse(rec.stdout), { tools: 'record', divergence: null, tool_answers_from_record: 2, workspace: { source: null } });

  t.is((await run([path.join(r.cwd, 'data.txt')])).code, 2);
  t.deepEqual((await readdir(tmp)).filter((n) => n.startsWith('svc-code-replay-')), []);
});

test('svc-code replay with SVC_CODE_JOURNAL_URL set: the replay runs in its temp home, the shared database is not written', async (t) => {
  t.timeout(180_000);
  const r = await recordSession(t);
  const zipFile = path.join(await tempHome(), 'export.zip');
  await writeFile(zipFile, await exportZip(r.s, r.sid));
  const url = await freshDatabase();
  const tmp = await tempHome();
  t.teardown(() => rm(tmp, { recursive: true, force: true }));
  const rec = await cli(await tempHome(), ['replay', zipFile, '--json'], { TMPDIR: tmp, SVC_CODE_JOURNAL_URL: url });
  t.is(rec.code, 0, rec.stdout + rec.stderr);
  t.like(JSON.parse(rec.stdout), { session_id: r.sid, divergence: null, home: null });
  t.is((await sql(url, "SELECT to_regclass('journal_events') AS t")).rows[0].t, null, 'no journal schema was made in the database');
});

test('replay comparison: minted ids and times are ignored, references must line up, a short replay diverges at its end', (t) => {
  const ev = (seq: number, type: string, payload: unknown) => ({ seq, type, payload });
  const a = normalize([
    ev(1, 'session.created', { session: { id: 'session_01M8CG0Z46NX0SRWGPHBXSFEEC' } }),
    ev(2, 'turn.started', { turn_id: 'turn_01M8CG0ZFDTSH2WT8VVFYXBD0R', started_at: '2026-01-01T00:00:00Z' }),
    ev(3, 'tool.result', { turn_id: 'turn_01M8CG0ZFDTSH2WT8VVFYXBD0R', content: 'ls /origin/dir', duration_ms: 5 }),
  ], '/origin/dir');
  const b = normalize([
    ev(1, 'session.created', { session: { id: 'session_01M8CG0Z46NX0SRWGPHBXSFEEZ' } }),
    ev(2, 'turn.started', { turn_id: 'turn_01M8CG0ZFDTSH2WT8VVFYXBD0Z', started_at: '2026-02-02T00:00:00Z' }),
    ev(3, 'tool.result', { turn_id: 'turn_01M8CG0ZFDTSH2WT8VVFYXBD0Z', content: 'ls /scratch/ws', duration_ms: 9 }),
  ], '/scratch/ws');
  t.is(firstDivergence(a, b), null);
  const other = normalize([
    ev(2, 'turn.started', { turn_id: 'turn_01M8CG0ZFDTSH2WT8VVFYXBD0Z' }),
    ev(3, 'tool.result', { turn_id: 'turn_01M8CG0ZFDTSH2WT8VVFYXBD0Y', content: 'ls /scratch/ws' }),
  ], '/scratch/ws');
  t.like(firstDivergence(a, other), { index: 1, field: 'payload.turn_id' });
  t.like(firstDivergence(a, b.slice(0, 1)), { index: 1, field: 'missing', got: null, expected: { seq: 3, type: 'tool.result' } });
});

test('replay of a subagent, a todo list, thinking, a retried step, an answered question and a failed step: each agent is served its own answers', async (t) => {
  t.timeout(60_000);
  const env = await startEngine(t, { extraToml: YOLO });
  const cwd = (await env.s.get(`/api/v1/sessions/${env.sid}`)).data.metadata.cwd;
  await writeFile(path.join(cwd, 'AGENTS.md'), 'Always answer in haiku.\n');
  env.llm.setScript(
    { events: [{ tool_call: { id: 't1', name: 'TodoWrite', args: { todos: [{ id: 'a', content: 'look', status: 'in_progress' }] } } }] },
    agentCall('c1', { description: 'fg job', prompt: 'look around the tree' }),
    say('found the tree'),
    say('all done'),
  );
  await prompt(env, 'plan and delegate');
  await turnEnded(env, 1);
  env.llm.setScript(scripts.serverError, scripts.thinkingThenText);
  await prompt(env, 'think after a retry');
  await turnEnded(env, 2);
  const color = { question: 'Which color?', header: 'Color', options: [{ label: 'Red' }, { label: 'Blue' }] };
  env.llm.setScript({ events: [{ tool_call: { id: 'q1', name: 'AskUserQuestion', args: { questions: [color] } } }] }, scripts.helloText);
  await prompt(env, 'ask me');
  const q = await env.ws.waitFor((f) => f.type === 'event.question.requested', 30_000);
  t.is((await env.s.post(`/api/v1/sessions/${env.sid}/questions/${q.payload.question_id}`, { answers: { q_0: { kind: 'single', option_id: 'o_1' } }, note: 'blue it is' })).code, 0);
  await turnEnded(env, 3);
  env.llm.setScript(scripts.badRequest);
  await prompt(env, 'fail now');
  await turnEnded(env, 4);
  const recorded = await journal(env);
  t.true(recorded.some((e) => e.type === 'subagent.completed'));
  t.true(recorded.some((e) => e.type === 'turn.step.interrupted'));
  t.true(recorded.some((e) => e.type === 'turn.step.retrying'));
  const zip = await exportZip(env.s, env.sid);

  t.true(recorded.some((e) => e.type === 'system_prompt.recorded' && e.payload.text.includes('Always answer in haiku.')));

  // --tools record: the empty workspace gets the recorded AGENTS.md (the system prompt is compared); --keep keeps the home.
  const report = await replaySession({ zip, tools: 'record', keep: true, log: pino({ level: 'silent' }), settings: readSettings(process.env) });
  t.teardown(() => rm(report.home!, { recursive: true, force: true }));
  t.is((await readFile(path.join(report.workspace.scratch, 'AGENTS.md'), 'utf8')).trim(), 'Always answer in haiku.');
  t.true(report.workspace.scratch.startsWith(report.home!));
  t.like(report, { divergence: null, stopped: null, turns: { recorded: 4, replayed: 4 }, model_answers: { recorded: 9, served: 9 } });
});
