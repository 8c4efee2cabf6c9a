import test from 'ava';
import type { JournalEvent } from '../../journal/types.ts';
import type { GoalSnapshot } from '../../protocol/events/session.ts';
import { GoalDriver, type GoalDriverDeps } from '../../src/goals/driver.ts';
import pino from 'pino';

// The goal driver reacts to committed events, while the session's read model moves when an append is accepted
// (before it is committed). A pause accepted after a turn started but before that turn.started's commit reached the
// driver must not stop the turn from counting: the CI saw the goals test end with turnsUsed 2 instead of 3 when the
// driver read the goal from the read model (already paused) instead of as of the event.

const SID = 'session_1';
const goal = (status: GoalSnapshot['status'], turnsUsed = 0): GoalSnapshot => ({
  goalId: 'goal_1', objective: 'Keep going', status, turnsUsed, tokensUsed: 0, wallClockMs: 0,
  budget: { tokens: null, turns: null, wallClockMs: null },
});

let seq = 0;
const event = (type: string, payload: unknown): JournalEvent => ({ stream: SID, seq: ++seq, epoch: 'e', type, ts: new Date().toISOString(), payload });
const usage = { input_tokens: 1, output_tokens: 1 };
const started = (turn: string) => event('turn.started', { agent_id: 'main', turn_id: turn, prompt_id: 'p', prompt_ids: [], model: 'm', started_at: new Date().toISOString() });
const ended = (turn: string) => event('turn.ended', { agent_id: 'main', turn_id: turn, prompt_id: 'p', reason: 'completed', usage, steps: 1, ended_at: new Date().toISOString() });

/** A driver over a read model the test sets by hand (`current`), recording the goals it journals. */
function driverWith(current: { goal: GoalSnapshot }) {
  const written: GoalSnapshot[] = [];
  const deps = {
    sessions: { get: (id: string) => (id === SID ? { id: SID, goal: current.goal } : undefined), all: () => [{ id: SID, goal: current.goal }] },
    journal: { append: async (evs: Array<{ payload: { goal: GoalSnapshot } }>) => { written.push(...evs.map((e) => e.payload.goal)); return []; } },
    engine: { get: () => undefined },
    log: pino({ level: 'silent' }),
    submit: async () => undefined,
  } as unknown as GoalDriverDeps;
  return { driver: new GoalDriver(deps), written };
}

const settle = () => new Promise((r) => setImmediate(r));

test('a turn that started under the active goal counts, though a pause was accepted before its start was committed', async (t) => {
  const current = { goal: goal('active') };
  const { driver, written } = driverWith(current);
  driver.onCommitted([event('goal.updated', { goal: goal('active') })]);
  await settle();
  // The pause is accepted (the read model says paused) before turn.started's commit reaches the driver.
  current.goal = goal('paused');
  driver.onCommitted([started('turn_1')]);
  driver.onCommitted([event('goal.updated', { goal: goal('paused') })]);
  driver.onCommitted([ended('turn_1')]);
  await settle();
  t.deepEqual(written.map((g) => [g.status, g.turnsUsed]), [['paused', 1]], 'the paused turn is counted');
});

test('a turn that started while the goal was paused does not count', async (t) => {
  const current = { goal: goal('paused') };
  const { driver, written } = driverWith(current);
  driver.onCommitted([event('goal.updated', { goal: goal('paused') })]);
  driver.onCommitted([started('turn_1')]);
  driver.onCommitted([ended('turn_1')]);
  await settle();
  t.deepEqual(written, []);
});

test('after a start, a goal not yet seen in an event is the one seeded from the records, not the read model that moved on since', async (t) => {
  // The daemon starts with the goal active (a resume before the restart); the driver is seeded from the records.
  const current = { goal: goal('active') };
  const { driver, written } = driverWith(current);
  driver.seed();
  // A turn starts under it; a pause is accepted before the turn.started's commit reaches the driver.
  current.goal = goal('paused');
  driver.onCommitted([started('turn_1')]);
  driver.onCommitted([event('goal.updated', { goal: goal('paused') })]);
  driver.onCommitted([ended('turn_1')]);
  await settle();
  t.deepEqual(written.map((g) => [g.status, g.turnsUsed]), [['paused', 1]], 'the turn that started under the active goal counts');
});

test('another node\'s goal change is noted, not acted on: a turn run here after the session moved here counts under the goal as it is now', async (t) => {
  const current = { goal: goal('active') };
  const { driver, written } = driverWith(current);
  driver.onCommitted([event('goal.updated', { goal: goal('active') })]);
  await settle();
  // The session moved to another node, which completed the goal; then it moved back here.
  current.goal = { ...goal('complete', 4), terminalReason: 'completed' };
  driver.onFollowed([event('goal.updated', { goal: current.goal })]);
  t.deepEqual(written, [], 'nothing written for another node\'s change');
  driver.onCommitted([started('turn_9')]);
  driver.onCommitted([ended('turn_9')]);
  await settle();
  t.deepEqual(written, [], 'a turn after the goal was completed elsewhere does not count');
});
