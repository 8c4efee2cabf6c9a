// The client store of one agent's transcript (spec/clients.md B and C): a REST baseline
// (GET /transcript) and then transcript.reset / transcript.ops batches from subscribe_v2.
// Any gap (a batch seq that is not watermark+1, an append past the text) asks for a REST reload.
import type { RecOp, RecPrompt } from '../../protocol/schemas/transcript-records.ts';
import type { TranscriptSnapshot } from '../../protocol/ws/server-frames.ts';

/**
 * A frame as the daemon sends it; `seenAt` / `endedAt` are this page's own: when it first saw a tool call
 * running and when it saw it end (epoch ms), the duration a row shows for calls watched live.
 */
export type Frame = { kind: 'text' | 'thinking' | 'tool' | 'notice'; frameId: string; seenAt?: number; endedAt?: number; [k: string]: any };
export type Step = { kind?: 'step'; stepId: string; turnId: string; ordinal: number; state: string; frames: Frame[]; [k: string]: any };
/** `rev` is the client's own counter, bumped by every op that changes the turn (the chat re-renders only changed turns). */
export type Turn = {
  kind: 'turn'; turnId: string; ordinal: number; state: string; prompt?: string; steps: Step[]; error?: string; rev?: number;
  attachmentIds?: string[]; startedAt?: string; endedAt?: string; [k: string]: any;
};
export type Marker = { kind: 'marker'; markerId: string; marker: string; payload?: any; at?: string };
export type Item = Turn | Marker | { kind: 'taskref'; refId: string; taskId: string };
/** A prompt of the queue (clients.md B4): `content` holds the REST content parts (read defensively: the record types it `unknown`). */
export type Prompt = RecPrompt;
export type Attachment = { attachmentId: string; mediaType: string; name?: string; size?: number };
export type Interaction = { interactionId: string; interactionKind: 'approval' | 'question'; state: string; toolCallId?: string; request?: any; response?: any };

export interface Transcript {
  items: Item[];
  interactions: Map<string, Interaction>;
  prompts: Map<string, Prompt>;
  tasks: Map<string, any>;
  attachments: Map<string, Attachment>;
  meta: Record<string, any>;
  /** Bumped by every interaction op: the turns re-render (a tool row's approval state). */
  irev: number;
  seq: number | undefined;
  hasMoreOlder: boolean;
}

/** The records a baseline holds: a `transcript.reset` snapshot, or a GET /transcript page (the same records). */
export type Baseline = Partial<Pick<TranscriptSnapshot, 'items' | 'interactions' | 'prompts' | 'tasks' | 'attachments' | 'meta'>>;

export function fromSnapshot(s: Baseline, seq: number | undefined, hasMoreOlder: boolean): Transcript {
  return {
    items: (s.items ?? []).map(clone),
    interactions: new Map((s.interactions ?? []).map((i: Interaction) => [i.interactionId, i])),
    prompts: new Map((s.prompts ?? []).map((p: Prompt) => [p.promptId, p])),
    tasks: new Map((s.tasks ?? []).map((t) => [t.taskId, t])),
    attachments: new Map((s.attachments ?? []).map((a: Attachment) => [a.attachmentId, a])),
    meta: { ...(s.meta ?? {}) },
    irev: 0,
    seq,
    hasMoreOlder,
  };
}

const clone = <T>(v: T): T => JSON.parse(JSON.stringify(v));

export class Gap extends Error {}

function itemId(i: Item): string {
  return i.kind === 'turn' ? i.turnId : i.kind === 'marker' ? i.markerId : i.refId;
}

function turnOf(t: Transcript, turnId: string): Turn {
  let turn = t.items.find((i): i is Turn => i.kind === 'turn' && i.turnId === turnId);
  if (!turn) {
    turn = { kind: 'turn', turnId, ordinal: Number(turnId.slice(1)) || 0, state: 'running', origin: { kind: 'other' }, steps: [] };
    insertTurn(t, turn);
  }
  return turn;
}

function insertTurn(t: Transcript, turn: Turn): void {
  const at = t.items.findIndex((i) => i.kind === 'turn' && i.ordinal > turn.ordinal);
  if (at < 0) t.items.push(turn);
  else t.items.splice(at, 0, turn);
}

const touch = (turn: Turn | undefined): void => {
  if (turn) turn.rev = (turn.rev ?? 0) + 1;
};

function stepOf(t: Transcript, turnId: string, stepId: string): Step {
  const turn = turnOf(t, turnId);
  touch(turn);
  let step = turn.steps.find((s) => s.stepId === stepId);
  if (!step) {
    step = { stepId, turnId, ordinal: Number(stepId.slice(turnId.length + 1)) || 0, state: 'running', frames: [] };
    turn.steps.push(step);
    turn.steps.sort((a, b) => a.ordinal - b.ordinal);
  }
  return step;
}

/** A tool frame's watched times: first seen running (kept from the frame it replaces), seen ended. */
function timeTool(frame: Frame, before: Frame | undefined): void {
  const now = Date.now();
  if (before?.seenAt !== undefined) frame.seenAt = before.seenAt;
  else if (!before && frame.state === 'running') frame.seenAt = now;
  if (frame.state !== 'running' && frame.seenAt !== undefined) frame.endedAt = before?.endedAt ?? now;
}

type Op<K extends RecOp['op']> = Extract<RecOp, { op: K }>;

function upsertTurn(t: Transcript, op: Op<'turn.upsert'>): void {
  const existing = t.items.find((i): i is Turn => i.kind === 'turn' && i.turnId === op.turn.turnId);
  if (existing) {
    Object.assign(existing, { ...op.turn, steps: existing.steps, kind: 'turn' });
    touch(existing);
  } else insertTurn(t, { ...op.turn, kind: 'turn', steps: [] });
}

function upsertFrame(t: Transcript, op: Op<'frame.upsert'>): void {
  const step = stepOf(t, op.turnId, op.stepId);
  const at = step.frames.findIndex((f) => f.frameId === op.frame.frameId);
  const frame: Frame = { ...op.frame };
  if (frame.kind === 'tool') timeTool(frame, at >= 0 ? step.frames[at] : undefined);
  if (at >= 0) step.frames[at] = frame;
  else step.frames.push(frame);
}

/** An `append` to a task's output or to a text / thinking frame at its offset; throws Gap when it does not fit. */
function append(t: Transcript, op: Op<'append'>): void {
  const target = op.target;
  if (target.type === 'task') {
    const task = t.tasks.get(target.taskId) ?? { taskId: target.taskId, kind: 'other', state: 'running', detached: false, outputTail: '' };
    task.outputTail = (task.outputTail ?? '') + op.text;
    t.tasks.set(task.taskId, task);
    return;
  }
  const turn = t.items.find((i): i is Turn => i.kind === 'turn' && i.turnId === target.turnId);
  const frame = turn?.steps.find((s) => s.stepId === target.stepId)?.frames.find((f) => f.frameId === target.frameId);
  if (!frame || (frame.kind !== 'text' && frame.kind !== 'thinking')) throw new Gap('append target missing');
  const text: string = frame.text ?? '';
  if (op.offset > text.length) throw new Gap('append past the text');
  const overlap = text.slice(op.offset);
  if (!op.text.startsWith(overlap)) {
    if (overlap.startsWith(op.text)) return; // already present
    throw new Gap('append overlap mismatch');
  }
  frame.text = text + op.text.slice(overlap.length);
  touch(turn);
}

function upsertItem(t: Transcript, op: Op<'marker.upsert' | 'taskref.upsert'>): void {
  const id = itemId(op.item);
  const at = t.items.findIndex((i) => itemId(i) === id);
  if (at >= 0) t.items[at] = op.item;
  else {
    const before = op.beforeTurn === undefined ? -1 : t.items.findIndex((i) => i.kind === 'turn' && i.ordinal >= op.beforeTurn!);
    if (before < 0) t.items.push(op.item);
    else t.items.splice(before, 0, op.item);
  }
}

function mergeMeta(t: Transcript, op: Op<'meta.merge'>): void {
  const m = op.meta ?? {};
  if ('goal' in m) t.meta.goal = m.goal;
  if (m.activity !== undefined) t.meta.activity = m.activity;
  if (m.modes) t.meta.modes = { ...(t.meta.modes ?? {}), ...m.modes };
  if (m.agent) t.meta.agent = { ...(t.meta.agent ?? {}), ...m.agent };
}

function applyOp(t: Transcript, op: RecOp): void {
  switch (op.op) {
    case 'turn.upsert': return upsertTurn(t, op);
    case 'step.upsert': {
      const step = stepOf(t, op.turnId, op.step.stepId);
      Object.assign(step, { ...op.step, frames: step.frames });
      return;
    }
    case 'frame.upsert': return upsertFrame(t, op);
    case 'append': return append(t, op);
    case 'marker.upsert':
    case 'taskref.upsert': return upsertItem(t, op);
    case 'task.upsert': return void t.tasks.set(op.task.taskId, op.task);
    case 'interaction.upsert':
      t.interactions.set(op.interaction.interactionId, op.interaction);
      t.irev++;
      return;
    case 'prompt.upsert': return void t.prompts.set(op.prompt.promptId, op.prompt);
    case 'attachment.upsert': return void t.attachments.set(op.attachment?.attachmentId, op.attachment);
    case 'meta.merge': return mergeMeta(t, op);
    case 'items.remove': {
      const ids = new Set<string>(op.ids);
      t.items = t.items.filter((i) => !ids.has(itemId(i)));
      return;
    }
    default: // todo.upsert, reset: nothing this page shows
  }
}

/** Applies one ops batch in place; throws Gap when the client must reload. */
export function applyOps(t: Transcript, ops: readonly RecOp[]): void {
  for (const op of ops) applyOp(t, op);
}

/** Is a turn running (clients.md B5: meta.activity "turn", or the newest turn still running)? */
export function busy(t: Transcript): boolean {
  if (t.meta.activity === 'turn') return true;
  if (t.meta.activity !== undefined) return false;
  const last = [...t.items].reverse().find((i): i is Turn => i.kind === 'turn');
  return last?.state === 'running';
}

export function pending(t: Transcript): Interaction[] {
  return [...t.interactions.values()].filter((i) => i.state === 'pending');
}

/** Puts a page of older turns (GET /transcript before_turn) before the turns held. */
export function mergeOlder(t: Transcript, older: Transcript): void {
  t.items = [...older.items, ...t.items];
  for (const [k, v] of older.interactions) if (!t.interactions.has(k)) t.interactions.set(k, v);
  for (const [k, v] of older.prompts) if (!t.prompts.has(k)) t.prompts.set(k, v);
  for (const [k, v] of older.attachments) if (!t.attachments.has(k)) t.attachments.set(k, v);
  t.hasMoreOlder = !!older.hasMoreOlder;
}

/**
 * A `transcript.reset` baseline holds the newest page only: keeps the older turns (and their markers) the
 * client already paged in before that page, so a reset (a reconnect) does not drop the reader's history.
 */
export function rebase(old: Transcript | null, snap: Transcript): Transcript {
  const first = snap.items.find((i): i is Turn => i.kind === 'turn');
  if (!old || !first) return snap;
  const cut = old.items.findIndex((i) => i.kind === 'turn' && i.ordinal >= first.ordinal);
  const keep = cut < 0 ? old.items : old.items.slice(0, cut);
  if (!keep.some((i) => i.kind === 'turn')) return snap;
  snap.items = [...keep, ...snap.items];
  snap.hasMoreOlder = old.hasMoreOlder;
  for (const [k, v] of old.interactions) if (!snap.interactions.has(k)) snap.interactions.set(k, v);
  for (const [k, v] of old.prompts) if (!snap.prompts.has(k)) snap.prompts.set(k, v);
  for (const [k, v] of old.attachments) if (!snap.attachments.has(k)) snap.attachments.set(k, v);
  snap.irev = old.irev + 1;
  return snap;
}
