import test from 'ava';
import { activityStatusOf } from '../../protocol/activity.ts';

// The one activity rule (Part B v2 list `activity.status`), used by the list and by the web UI's badges.

test('an open approval or question wins over busy and over a failed last turn', (t) => {
  t.is(activityStatusOf({ busy: true, pending_interaction: 'approval', last_turn_reason: 'failed' }), 'approval');
  t.is(activityStatusOf({ busy: true, pending_interaction: 'question', last_turn_reason: 'failed' }), 'question');
});

test('busy without a pending interaction is running', (t) => {
  t.is(activityStatusOf({ busy: true, pending_interaction: 'none', last_turn_reason: 'failed' }), 'running');
  t.is(activityStatusOf({ busy: true }), 'running');
});

test('idle sessions say how the last main turn ended: failed, else idle', (t) => {
  t.is(activityStatusOf({ busy: false, pending_interaction: 'none', last_turn_reason: 'failed' }), 'failed');
  t.is(activityStatusOf({ busy: false, pending_interaction: 'none', last_turn_reason: 'cancelled' }), 'idle');
  t.is(activityStatusOf({ busy: false, pending_interaction: 'none', last_turn_reason: 'completed' }), 'idle');
  t.is(activityStatusOf({}), 'idle');
  t.is(activityStatusOf({ busy: null, pending_interaction: null, last_turn_reason: null }), 'idle');
});
