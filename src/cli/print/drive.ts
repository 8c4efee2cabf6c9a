import type { Core } from '../../app/core.ts';
import { registerSubscribers } from '../../app/subscribers.ts';
import { acceptPrompt } from '../../engine/prompt-intake.ts';
import type { PromptInput } from '../../../protocol/schemas/prompts.ts';
import type { PrintArgs } from './args.ts';
import { waitForWork, type WaitEnd, type WaitLimits } from './background.ts';
import type { PrintOutput, PrintResult } from './output.ts';
import type { FollowUpGate } from './follow-ups.ts';
import { printSubscribers } from './subscribers.ts';
import { TurnWatch } from './turns.ts';
import { unattended } from './unattended.ts';

export interface DriveOptions {
  sessionId: string;
  prompt: string;
  args: Pick<PrintArgs, 'model' | 'permissionMode'>;
  output: PrintOutput;
  limits: WaitLimits;
  /** The core's gate on follow-up turns (src/cli/print/follow-ups.ts), opened here for the session. */
  followUps: FollowUpGate;
  warn(line: string): void;
  onSignal(handler: (signal: 'SIGINT' | 'SIGTERM') => void): () => void;
  exitNow(code: number): void;
}

/** How the run went: the exit status, the result (less its duration), and what failed. */
export interface Driven {
  code: number;
  result: Omit<PrintResult, 'duration_ms'>;
  error?: { kind: string; message: string };
}

/**
 * The run on a booted engine: print mode's reactions registered, the prompt submitted through the prompt intake
 * (the checks and journaling of POST /prompts), then the wait for the turn and the background work it started
 * (src/cli/print/background.ts). The first Ctrl-C (or SIGTERM) aborts what runs, the turn ending as cancelled in
 * the journal; a second one leaves at once.
 */
export async function drive(core: Core, o: DriveOptions): Promise<Driven> {
  const { sessionId } = o;
  const turns = new TurnWatch(sessionId);
  // The engine's follow-up turns (steer) are admitted from now on, as the limits say.
  o.followUps.open(sessionId, o.limits);
  registerSubscribers(core.journal, printSubscribers(core, {
    turns: turns.onCommitted, output: o.output.onCommitted, unattended: unattended(core, sessionId, o.warn),
  }), core.log);
  core.bus.subscribe(o.output.onVolatile);
  const interrupt = new AbortController();
  const stop = () => stopSession(core, sessionId);
  const offSignal = o.onSignal((signal) => {
    if (interrupt.signal.aborted) return o.exitNow(130);
    o.warn(`${signal === 'SIGINT' ? 'interrupted' : 'terminated'}: aborting the turn (again to leave at once)`);
    interrupt.abort();
    void stop().catch((err) => o.warn(`could not abort the turn: ${(err as Error).message}`));
  });
  try {
    const body = {
      content: [{ type: 'text', text: o.prompt }],
      ...(o.args.model !== undefined ? { model: o.args.model } : {}),
      ...(o.args.permissionMode !== undefined ? { permission_mode: o.args.permissionMode } : {}),
    } as PromptInput;
    try {
      await acceptPrompt(core, sessionId, body);
    } catch (err) {
      const error = { kind: 'prompt_refused', message: `prompt refused: ${(err as Error).message}` };
      return { code: 1, result: resultOf(sessionId, turns, error), error };
    }
    // A Ctrl-C while the prompt was being accepted: its turn is aborted as soon as it is queued.
    if (interrupt.signal.aborted) await stop();
    const end = await waitForWork({
      started: () => turns.started, ended: () => turns.ended, nextEnd: () => turns.nextEnd(),
      busy: () => core.live.isBusy(sessionId), notesWaiting: () => core.notes.waiting(sessionId), 
      // Every follow-up turn admitted has started (one admitted a moment ago is still being queued: not yet).
      exhausted: () => o.followUps.exhausted && turns.started - 1 >= o.followUps.count,
    }, o.limits, interrupt.signal, stop);
    return outcome(sessionId, turns, end, o.limits);
  } finally {
    offSignal();
  }
}

/** Aborts the session's queued prompts and its running turn (each journaled: prompt.aborted, turn.ended cancelled). */
async function stopSession(core: Pick<Core, 'engine'>, sessionId: string): Promise<void> {
  const rt = core.engine.get(sessionId);
  if (!rt) return;
  for (const q of rt.listPrompts().queued) await rt.abortPrompt(q.prompt_id);
  rt.abortTurn();
}

function outcome(sessionId: string, turns: TurnWatch, end: WaitEnd, limits: WaitLimits): Driven {
  const last = turns.snapshot().last;
  let error: Driven['error'];
  let code = 1;
  if (end === 'interrupted') {
    error = { kind: 'interrupted', message: 'interrupted: the turn was cancelled' };
    code = 130;
  } else if (end === 'ceiling') {
    error = { kind: 'print_wait_ceiling', message: `print_wait_ceiling_s (${limits.ceilingMs / 1000} s) reached with background work pending; it was stopped` };
  } else if (end === 'max_turns') {
    error = { kind: 'print_max_turns', message: `print_max_turns (${limits.maxTurns}) follow-up turns reached with background work pending; it was stopped` };
  } else if (end === 'unfed') {
    error = { kind: 'print_follow_up_refused', message: 'background work ended but its follow-up turn was refused; its results were not fed back (SVC_CODE_LOG_LEVEL=warn logs why)' };
  } else if (last?.reason === 'completed') {
    code = 0;
  } else {
    error = last?.error ? { kind: last.error.kind, message: `the turn failed: ${last.error.message}` } : { kind: last?.reason ?? 'failed', message: `the turn ended ${last?.reason ?? 'without a result'}` };
  }
  return { code, result: resultOf(sessionId, turns, error), ...(error ? { error } : {}) };
}

function resultOf(sessionId: string, turns: TurnWatch, error?: Driven['error']): Driven['result'] {
  const t = turns.snapshot();
  return {
    type: 'result', session_id: sessionId, result: t.text, reason: t.last?.reason ?? null, ...(error ? { error } : {}), usage: t.usage, num_turns: t.ended,
  };
}
