import { applyDelta, patchTool, toolFrame } from './records-write.ts';
import { OpList, recAgent, type EmittedOp, type OpsOut, type RecordsState, type RecToolProgress } from './records-state.ts';
import type { PayloadOf, VolatileType } from '../contract.ts';

// The volatile inputs of the live fold (projections/transcript/live/), never journaled: streamed deltas (records.ts
// applyDelta), a running tool's progress (spec/clients.md B3 tool `progress`, C2 "tool progress": `frame.upsert`
// of the tool frame with `progress`) and a background task's output (`append` to the task). A fold of the journal
// has none of them; each is replaced by a durable event later (the step's message.created, the call's tool.result,
// which drops `progress`, the task's task.terminated, which carries the output's tail).

/** The `progress.text` a Bash call keeps: the tail of its output so far, from a line start when one is in it. */
const PROGRESS_CHARS = 2000;
/** A running task's `outputTail` grows by appends up to this many characters, then is cut to OUTPUT_TAIL_KEEP. */
const OUTPUT_TAIL_MAX = 8000;
const OUTPUT_TAIL_KEEP = 4000;
/** A custom progress payload larger than this (JSON) is sent without its `customData`. */
const PROGRESS_DATA_CHARS = 4096;

type Progress = RecToolProgress;
type ProgressPayload = PayloadOf<'tool.progress'>;

/** Applies one volatile event the transcript channel carries (registry `transcript: 'delta'`); returns the ops it made. */
export function applyVolatile(s: RecordsState, type: VolatileType, p: Record<string, unknown>): EmittedOp[] {
  const o = new OpList();
  volatileInput(s, o, type, p);
  return o.ops;
}

function volatileInput(s: RecordsState, o: OpsOut, type: VolatileType, p: Record<string, unknown>): void {
  if (type === 'tool.progress') return toolProgress(s, o, p as ProgressPayload);
  if (type === 'shell.output') {
    const out = p as PayloadOf<'shell.output'>;
    return shellOutput(s, o, out.task_id, out.data);
  }
  applyDelta(s, o, type, p as never);
}

/**
 * A running background task's output (`shell.output`, B4 `outputTail`, C2 "shell output becomes append to the task"):
 * an `append` with a task target at the tail's length, on main's channel (task ops go to main). The tail is bounded:
 * once it would pass OUTPUT_TAIL_MAX characters it is cut to its last OUTPUT_TAIL_KEEP (from a line start) and sent
 * whole as `task.upsert`. task.terminated then carries the durable tail (`output_preview`), which replaces it.
 */
function shellOutput(s: RecordsState, o: OpsOut, taskId: string, data: string): void {
  const task = s.tasks.get(taskId);
  if (!task || task.state !== 'running' || !data) return;
  const grown = task.outputTail + data;
  if (grown.length > OUTPUT_TAIL_MAX) {
    const rec = { ...task, outputTail: tailLines(grown, OUTPUT_TAIL_KEEP) };
    s.tasks.set(taskId, rec);
    o.emit('main', { op: 'task.upsert', task: { ...rec } });
    return;
  }
  s.tasks.set(taskId, { ...task, outputTail: grown });
  o.emit('main', { op: 'append', target: { type: 'task', taskId }, offset: task.outputTail.length, text: data });
}

/** The last `max` characters of `text`, starting after a newline when the cut falls inside a line that has one before it. */
function tailLines(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.slice(-max);
  const nl = cut.indexOf('\n');
  return nl >= 0 && nl < cut.length - 1 ? cut.slice(nl + 1) : cut;
}

/**
 * `tool.progress` as B3 `progress`: Bash `{output}` chunks (stdout and stderr share one pipe) accumulate as
 * `{kind:'stdout', text}` (the output so far, its last PROGRESS_CHARS); an MCP progress notification
 * `{progress, total?, message?}` is `{kind:'progress', percent?, text?}`; anything else (plugin tools) is
 * `{kind:'custom', customKind: <tool name>, customData}`.
 */
function progressOf(prev: Progress | undefined, p: ProgressPayload): Progress {
  if (typeof p.output === 'string') {
    return { kind: 'stdout', text: tailLines((prev?.kind === 'stdout' ? prev.text ?? '' : '') + p.output, PROGRESS_CHARS) };
  }
  if (typeof p.progress === 'number') {
    const total = typeof p.total === 'number' && p.total > 0 ? p.total : undefined;
    return {
      kind: 'progress', ...(total !== undefined ? { percent: Math.min(100, Math.round((p.progress / total) * 1000) / 10) } : {}),
      ...(typeof p.message === 'string' ? { text: p.message.slice(0, PROGRESS_CHARS) } : {}),
    };
  }
  const { agent_id: _a, tool_call_id: _c, tool_name: name, ...data } = p;
  const small = JSON.stringify(data).length <= PROGRESS_DATA_CHARS;
  return { kind: 'custom', customKind: name, ...(small ? { customData: data } : {}) };
}

function toolProgress(s: RecordsState, o: OpsOut, p: ProgressPayload): void {
  const agentId = p.agent_id ?? 'main';
  const a = recAgent(s, agentId);
  const at = toolFrame(a, p.tool_call_id);
  if (!at) {
    // The call's frame is not in the fold yet (its events are still on their way to disk): it gets this when it comes.
    a.pendingProgress.set(p.tool_call_id, progressOf(a.pendingProgress.get(p.tool_call_id), p));
    return;
  }
  // Progress of a finished call is dropped.
  if (at.frame.state !== 'running') return;
  patchTool(s, o, agentId, p.tool_call_id, { progress: progressOf(at.frame.progress, p) });
}
