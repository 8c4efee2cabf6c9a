import { setTimeout as delay } from 'node:timers/promises';
import type { Journal } from '../../journal/journal.ts';
import type { JournalEvent } from '../../journal/types.ts';
import type { JournalLine } from '../archive/format.ts';
import type { PermissionService } from '../permissions/service.ts';
import type { QuestionService } from '../questions/service.ts';
import type { LiveSessions } from '../sessions/live.ts';
import type { PromptInput } from '../../protocol/schemas/prompts.ts';
import type { PromptSource } from '../engine/prompt-intake.ts';
import { NOT_COMPARED } from './compare.ts';
import type { Recording } from './record.ts';
import { known } from '../../protocol/events/known.ts';

export interface DriveDeps {
  journal: Pick<Journal, 'headSeq' | 'readRange'>;
  live: Pick<LiveSessions, 'get'>;
  permissions: Pick<PermissionService, 'pendingItems' | 'resolve'>;
  questions: Pick<QuestionService, 'pendingItems' | 'answer' | 'dismissByUser'>;
  prompt(sessionId: string, body: PromptInput, source?: PromptSource): Promise<unknown>;
  /**
   * The tools run again (`--tools live`): background tasks end and wake the agent by themselves, so the
   * recorded follow-up prompts (source `task`) are not sent; under `record` no task runs and they are.
   */
  liveTools?: boolean;
}

/** What the user did in the recording, each at its place among the compared events. */
type Input =
  | { kind: 'prompt'; at: number; body: PromptInput; source?: PromptSource }
  | { kind: 'approval'; at: number; toolCallId: string; body: { decision: 'approved' | 'rejected' | 'cancelled'; scope?: 'session'; feedback?: string; selected_label?: string } }
  | { kind: 'answer'; at: number; toolCallId: string; body: { answers: Record<string, never>; method?: 'enter'; note?: string } }
  | { kind: 'dismiss'; at: number; toolCallId: string };

/** How long the session must stay settled with nothing appended before the driver moves on. */
const QUIET_MS = 400;
const POLL_MS = 15;

type Payload = Record<string, any>;

/**
 * The user's side of the recording, done again in order: each main-agent prompt is sent once the replay has
 * produced the events that came before it (or has settled short of them), each approval and question is
 * answered as recorded once the replay asks it (same tool call id: the ids come from the recorded model).
 */
export async function drive(deps: DriveDeps, sid: string, rec: Recording, stallMs: number): Promise<{ events: JournalEvent[]; stopped: string | null }> {
  const events: JournalEvent[] = [];
  let compared = 0;
  let lastProgress = performance.now();
  // Approvals and questions whose request is on disk: a client answers only what it was told of.
  const asked = new Set<string>();
  const refresh = async () => {
    if (deps.journal.headSeq(sid) <= (events.at(-1)?.seq ?? 0)) return;
    const more = await deps.journal.readRange(sid, (events.at(-1)?.seq ?? 0) + 1);
    events.push(...more);
    for (const e of more) {
      const id = (e.payload as Payload)?.approval_id ?? (e.payload as Payload)?.question_id;
      if (known(e).type === 'event.approval.requested' || known(e).type === 'event.question.requested') asked.add(String(id));
    }
    compared += more.filter((e) => !NOT_COMPARED.has(e.type)).length;
    lastProgress = performance.now();
  };
  const settled = () => {
    const state = deps.live.get(sid);
    return !state || !state.busy || state.pending_interaction !== 'none';
  };
  /** 'ok' once `cond` holds; 'settled' when the session rests without it; 'stalled' when nothing moves for stallMs. */
  const until = async (cond: () => boolean): Promise<'ok' | 'settled' | 'stalled'> => {
    for (;;) {
      await refresh();
      if (cond()) return 'ok';
      const idle = performance.now() - lastProgress;
      if (settled() && idle >= QUIET_MS) return 'settled';
      if (idle >= stallMs) return 'stalled';
      await delay(POLL_MS);
    }
  };

  for (const input of userInputs(rec.events, deps.liveTools === true)) {
    if (input.kind === 'prompt') {
      if ((await until(() => compared >= input.at)) === 'stalled') return { events, stopped: `gave up waiting to send the prompt at compared event ${input.at}` };
      try {
        await deps.prompt(sid, input.body, input.source);
      } catch (err) {
        // A prompt this home refuses (media it does not hold, a skill it lacks): the run stops here and the comparison shows it.
        return { events: (await refresh(), events), stopped: `the prompt at compared event ${input.at} was refused: ${(err as Error).message}` };
      }
      continue;
    }
    const pendingApproval = () => deps.permissions.pendingItems(sid).find((i) => i.tool_call_id === input.toolCallId && asked.has(i.approval_id));
    const pendingQuestion = () => deps.questions.pendingItems(sid).find((i) => i.tool_call_id === input.toolCallId && asked.has(i.question_id));
    const shown = await until(() => (input.kind === 'approval' ? pendingApproval() : pendingQuestion()) !== undefined);
    if (shown === 'stalled') return { events, stopped: `gave up waiting for the ${input.kind === 'approval' ? 'approval' : 'question'} of tool call ${input.toolCallId}` };
    if (shown !== 'ok') continue;
    if (input.kind === 'approval') await deps.permissions.resolve(sid, pendingApproval()!.approval_id, input.body);
    else if (input.kind === 'answer') await deps.questions.answer(sid, pendingQuestion()!.question_id, input.body as never);
    else await deps.questions.dismissByUser(sid, pendingQuestion()!.question_id);
  }
  // The end: everything recorded was produced and the session rests, or it rests short of it.
  const recorded = rec.events.filter((e) => !NOT_COMPARED.has(e.type)).length;
  const end = await until(() => compared >= recorded && settled());
  return { events, stopped: end === 'stalled' ? 'gave up waiting for the last turn to end' : null };
}

/** The recording's user inputs in order, each with the count of compared events before it. */
function userInputs(events: readonly JournalLine[], liveTools: boolean): Input[] {
  const out: Input[] = [];
  let at = 0;
  events.forEach((e, i) => {
    const p = e.payload as Payload;
    if (known(e).type === 'prompt.accepted' && p.agent_id === 'main' && p.source === 'task') {
      if (!liveTools) out.push({ kind: 'prompt', at, body: { content: p.content } as PromptInput, source: followUpOf(events, i) });
    } else if (known(e).type === 'prompt.accepted' && p.agent_id === 'main') {
      out.push({ kind: 'prompt', at, body: { content: p.content, ...stickyOverrides(events, i) } as PromptInput });
    } else if (known(e).type === 'event.approval.resolved' && p.reason === undefined) {
      const body = { decision: p.decision, ...pick(p, ['scope', 'feedback', 'selected_label']) };
      out.push({ kind: 'approval', at, toolCallId: String(p.tool_call_id), body: body as never });
    } else if (known(e).type === 'event.question.answered') {
      out.push({ kind: 'answer', at, toolCallId: String(p.tool_call_id), body: { answers: p.answers, ...pick(p, ['method', 'note']) } as never });
    } else if (known(e).type === 'event.question.dismissed' && p.reason === 'user') {
      out.push({ kind: 'dismiss', at, toolCallId: String(p.tool_call_id) });
    }
    if (!NOT_COMPARED.has(e.type)) at += 1;
  });
  return out;
}

/** A recorded follow-up prompt's source: its tasks and the metadata its user message carried. */
function followUpOf(events: readonly JournalLine[], i: number): PromptSource {
  const p = events[i]!.payload as Payload;
  const message = events.slice(i + 1).find((e) => known(e).type === 'message.created' && (e.payload as Payload).message?.id === p.user_message_id);
  return { kind: 'task', taskIds: (p.task_ids ?? []) as string[], metadata: ((message?.payload as Payload | undefined)?.message?.metadata ?? {}) as Record<string, unknown> };
}

/** A prompt's own overrides: they became the session's agent_config in the same batch (`session.profile_updated`). */
function stickyOverrides(events: readonly JournalLine[], i: number): Partial<PromptInput> {
  let j = i + 1;
  const typeAt = (k: number) => (events[k] ? known(events[k]).type : undefined);
  while (typeAt(j) === 'skill.activated' || typeAt(j) === 'plugin_command.activated') j++;
  const next = events[j];
  if (!next || known(next).type !== 'session.profile_updated') return {};
  return pick((next.payload as Payload).agent_config ?? {}, ['profile', 'model', 'thinking', 'permission_mode', 'disabled_tools']) as Partial<PromptInput>;
}

function pick(o: Payload, keys: string[]): Payload {
  const out: Payload = {};
  for (const k of keys) if (o[k] !== undefined) out[k] = o[k];
  return out;
}
