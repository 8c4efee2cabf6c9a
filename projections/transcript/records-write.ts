import {
  recAgent, stepHeader, turnHeader, type OpsOut, type RecAgent, type RecFrame, type RecordsState, type RecStep, type RecTurn, type StepSide,
} from './records-state.ts';
import type { VolatileType } from '../contract.ts';

// The writers of the client records (spec/clients.md B): each change of a record puts its op (C2) in `o`. The
// streamed deltas (applyDelta, live folds only) open and grow the frames a step's message.created later completes:
// a step's frames get the same ids either way (`<stepId>.f<k>` in the order text and thinking start).

export type TextLike = RecFrame & { kind: 'text' | 'thinking' };

export const stepIdOf = (turnId: string, n: number) => `${turnId}.${n}`;

export function side(a: RecAgent, stepId: string): StepSide {
  let sd = a.steps.get(stepId);
  if (!sd) a.steps.set(stepId, (sd = { frames: 0, unclaimed: [] }));
  return sd;
}

export function upsertTurn(s: RecordsState, o: OpsOut, agentId: string, t: RecTurn): void {
  o.emit(agentId, { op: 'turn.upsert', turn: turnHeader(t) });
}

export function upsertStep(s: RecordsState, o: OpsOut, agentId: string, t: RecTurn, st: RecStep): void {
  o.emit(agentId, { op: 'step.upsert', turnId: t.turnId, step: stepHeader(st) });
}

export function putFrame(s: RecordsState, o: OpsOut, agentId: string, t: RecTurn, st: RecStep, f: RecFrame): void {
  if (f.kind === 'tool') {
    // Progress that came before the call's frame (records-live.ts) joins it while the call runs.
    const pending = recAgent(s, agentId).pendingProgress;
    const early = pending.get(f.toolCallId);
    if (early) {
      pending.delete(f.toolCallId);
      if (f.state === 'running' && !f.progress) f = { ...f, progress: early };
    }
  }
  const i = st.frames.findIndex((x) => x.frameId === f.frameId);
  if (i >= 0) st.frames[i] = f;
  else st.frames.push(f);
  o.emit(agentId, { op: 'frame.upsert', turnId: t.turnId, stepId: st.stepId, frame: { ...f } });
}

export function turnOf(a: RecAgent, engineTurnId: string | undefined): RecTurn | undefined {
  return engineTurnId ? a.byEngineTurn.get(engineTurnId) : undefined;
}

export function stepOf(t: RecTurn | undefined, n: number): RecStep | undefined {
  return t?.steps.find((x) => x.ordinal === n);
}

export function marker(s: RecordsState, o: OpsOut, agentId: string, name: string, payload: unknown, at: string): void {
  const a = recAgent(s, agentId);
  a.markers += 1;
  const item = { kind: 'marker' as const, markerId: `live-m${a.markers}`, marker: name, payload, at };
  a.items.push(item);
  o.emit(agentId, { op: 'marker.upsert', item: { ...item } });
}

/** `meta.merge` as section C applies it: `goal` null clears, `modes` merged key by key (null clears), `agent` shallow-merged. */
export function mergeMeta(s: RecordsState, o: OpsOut, agentId: string, patch: Record<string, unknown>): void {
  const a = recAgent(s, agentId);
  for (const [k, val] of Object.entries(patch)) {
    if (k === 'goal' && val === null) delete a.meta.goal;
    else if (k === 'modes') {
      const modes: Record<string, unknown> = { ...(a.meta.modes as object | undefined) };
      for (const [mk, mv] of Object.entries(val as Record<string, unknown>)) {
        if (mv === null) delete modes[mk];
        else modes[mk] = mv;
      }
      a.meta.modes = modes;
    } else if (k === 'agent') a.meta.agent = { ...(a.meta.agent as object | undefined), ...(val as object) };
    else a.meta[k] = val;
  }
  o.emit(agentId, { op: 'meta.merge', meta: patch });
}

/**
 * A tool frame's id, `<stepId>.<toolCallId>` (spec/clients.md B3), unique within its step: a call id in the form of
 * the step's text and thinking frame ids (`f<k>`), or one starting with `~`, gets a `~` before it. A provider is
 * free to name a call `f1`; its frame then replaced the text the model wrote before the call (`t0.1.f1` both).
 */
export function toolFrameId(stepId: string, toolCallId: string): string {
  return `${stepId}.${/^(?:f\d+$|~)/.test(toolCallId) ? '~' : ''}${toolCallId}`;
}

export function toolFrame(a: RecAgent, toolCallId: string): { turn: RecTurn; step: RecStep; frame: RecFrame & { kind: 'tool' } } | undefined {
  const at = a.tools.get(toolCallId);
  const frame = at?.step.frames.find((f) => f.kind === 'tool' && f.toolCallId === toolCallId);
  return at && frame?.kind === 'tool' ? { ...at, frame } : undefined;
}

/** The tool frame of a call with `patch` applied and the `omit` keys removed (one `frame.upsert`). */
export function patchTool(s: RecordsState, o: OpsOut, agentId: string, toolCallId: string, patch: Record<string, unknown>, omit: readonly string[] = []): void {
  const a = recAgent(s, agentId);
  const at = toolFrame(a, toolCallId);
  if (!at) return;
  const frame: Record<string, unknown> = { ...at.frame, ...patch };
  for (const k of omit) delete frame[k];
  putFrame(s, o, agentId, at.turn, at.step, frame as RecFrame);
}

type DeltaPayload = { agent_id?: string; turn_id: string; step: number };

/**
 * A streamed delta (live channel only; deltas are never journaled): the first of a frame opens it
 * (`frame.upsert` with empty text, then `append` at 0), later ones `append` at the frame's length.
 */
export function applyDelta(s: RecordsState, o: OpsOut, type: VolatileType, p: DeltaPayload & Record<string, unknown>): void {
  const agentId = p.agent_id ?? 'main';
  const a = recAgent(s, agentId);
  const t = turnOf(a, p.turn_id);
  const st = stepOf(t, p.step);
  if (!t || !st) return;
  const sd = side(a, st.stepId);
  if (type === 'tool.call.delta') {
    sd.open = undefined;
    const id = String(p.tool_call_id);
    const at = toolFrame(a, id);
    const frame: RecFrame = {
      ...(at?.frame ?? {}), kind: 'tool', frameId: at?.frame.frameId ?? toolFrameId(st.stepId, id), toolCallId: id, name: String(p.tool_name), state: 'running',
      inputText: (at?.frame.inputText ?? '') + String(p.delta),
    };
    if (!at) a.tools.set(id, { turn: t, step: st });
    putFrame(s, o, agentId, t, at?.step ?? st, frame);
    return;
  }
  const kind = type === 'thinking.delta' ? 'thinking' : 'text';
  const text = String(p.text);
  let open = sd.open?.kind === kind ? sd.open : undefined;
  if (!open) {
    const frameId = `${st.stepId}.f${++sd.frames}`;
    open = kind === 'text' ? { kind, frameId, role: 'assistant', text: '' } : { kind, frameId, text: '' };
    sd.open = open;
    sd.unclaimed.push(open);
    putFrame(s, o, agentId, t, st, open);
  }
  const offset = open.text.length;
  const grown = { ...open, text: open.text + text } as TextLike;
  replaceFrame(st, sd, open, grown);
  o.emit(agentId, { op: 'append', target: { type: 'frame', turnId: t.turnId, stepId: st.stepId, frameId: open.frameId }, offset, text });
}

function replaceFrame(st: RecStep, sd: StepSide, from: TextLike, to: TextLike): void {
  const i = st.frames.indexOf(from);
  if (i >= 0) st.frames[i] = to;
  const u = sd.unclaimed.indexOf(from);
  if (u >= 0) sd.unclaimed[u] = to;
  sd.open = to;
}
