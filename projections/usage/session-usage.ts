import type { JournalEvent } from '../../journal/types.ts';
import { GLOBAL_STREAM, GUI_STREAM } from '../../journal/keys.ts';
import { known, type DurableType, type KnownEvent, type PayloadOf } from '../contract.ts';
import type { Projection, RecordWrite } from '../projection.ts';
import { messageChars } from './estimate.ts';
import { undoOf } from '../undo.ts';

const MAIN = 'main';

/** The main agent's turn between turn.started and turn.ended (snapshot `in_flight_turn`). */
export interface InFlightTurn {
  turn_id: string;
  prompt_id: string;
  current_prompt_id: string;
  started_at: string;
  step: number;
}

/** Per-session token accounting, one small record per session. */
export interface SessionUsage {
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens: number;
  cache_creation_tokens: number;
  /** Context measured by the provider at the main agent's last completed step. */
  measured_context: number;
  /** Whether any step was measured yet. */
  measured: boolean;
  /** Characters of main-agent messages created since that step (the unmeasured tail). */
  tail_chars: number;
  /** Characters of every main-agent message (the pure estimate). */
  total_chars: number;
  /** The message the last step produced: counted in its measure, not in the tail. */
  last_step_message_id?: string;
  turn_count: number;
  in_flight: InFlightTurn | null;
  /** Token sums per model alias over every agent's steps and compactions (the snapshot prices them: total_cost_usd). */
  by_model: Record<string, ModelTokens>;
  /** The model alias of each agent's current turn (a subagent's entry goes when its turn ends). */
  agent_models: Record<string, string>;
}

/** One model's token sums. */
export interface ModelTokens {
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens: number;
  cache_creation_tokens: number;
}

export const emptyUsage = (): SessionUsage => ({
  input_tokens: 0, output_tokens: 0, cache_read_tokens: 0, cache_creation_tokens: 0,
  measured_context: 0, measured: false, tail_chars: 0, total_chars: 0, turn_count: 0, in_flight: null, by_model: {}, agent_models: {},
});

const TRACKED: ReadonlySet<string> = new Set<DurableType>([
  'message.created', 'turn.started', 'turn.ended', 'turn.step.started', 'turn.step.completed', 'prompt.steered', 'compaction.completed', 'session.undone',
]);

type Usage = PayloadOf<'turn.step.completed'>['usage'];

const num = (x: unknown) => (typeof x === 'number' && Number.isFinite(x) ? x : 0);

/**
 * Usage rollup per session: token sums over every agent's completed steps,
 * the main agent's context measure and unmeasured tail, its turn count and
 * its in-flight turn. All derived from journal events, never from engine memory.
 */
export class UsageProjection implements Projection {
  readonly name = 'usage';
  // 2: token sums per model (by_model, agent_models).
  readonly version = 2;
  private bySession = new Map<string, SessionUsage>();

  reset(): void {
    this.bySession.clear();
  }

  load(key: string, value: unknown): void {
    this.bySession.set(key, value as SessionUsage);
  }

  get(session: string): SessionUsage {
    return this.bySession.get(session) ?? emptyUsage();
  }

  apply(event: JournalEvent): RecordWrite[] {
    if (known(event).type === 'event.session.deleted') {
      const id = (event.payload as { session_id: string }).session_id;
      if (!this.bySession.delete(id)) return [];
      return [{ key: id, delete: true }];
    }
    if (!TRACKED.has(event.type) || event.stream === GLOBAL_STREAM || event.stream === GUI_STREAM) return [];
    const cur = this.bySession.get(event.stream) ?? emptyUsage();
    const next = reduce(cur, known(event));
    if (next === cur) return [];
    this.bySession.set(event.stream, next);
    return [{ key: event.stream, value: next }];
  }
}

function reduce(u: SessionUsage, e: KnownEvent): SessionUsage {
  const p = e.payload as { agent_id?: string; turn_id?: string };
  const main = (p.agent_id ?? MAIN) === MAIN;
  switch (e.type) {
    case 'turn.step.completed': {
      const s = e.payload;
      const usage = s.usage ?? ({} as typeof s.usage);
      const next: SessionUsage = {
        ...u,
        input_tokens: u.input_tokens + num(usage.input_tokens),
        output_tokens: u.output_tokens + num(usage.output_tokens),
        cache_read_tokens: u.cache_read_tokens + num(usage.cache_read_tokens),
        cache_creation_tokens: u.cache_creation_tokens + num(usage.cache_creation_tokens),
        by_model: addTokens(u.by_model, u.agent_models[p.agent_id ?? MAIN], usage),
      };
      if (!main) return next;
      next.measured_context = typeof s.context_tokens === 'number' ? s.context_tokens
        : num(usage.input_tokens) + num(usage.cache_read_tokens) + num(usage.cache_creation_tokens) + num(usage.output_tokens);
      next.measured = true;
      next.tail_chars = 0;
      next.last_step_message_id = s.message_id;
      if (next.in_flight && next.in_flight.turn_id === s.turn_id) next.in_flight = { ...next.in_flight, step: num(s.step) };
      return next;
    }
    case 'message.created': {
      const m = e.payload.message;
      if (!main || !m) return u;
      const chars = messageChars(m);
      // The step's own answer is already inside its measure, whichever event came first.
      const tail = m.id === u.last_step_message_id ? u.tail_chars : u.tail_chars + chars;
      return { ...u, total_chars: u.total_chars + chars, tail_chars: tail };
    }
    case 'turn.started': {
      const t = e.payload;
      const agent_models = typeof t.model === 'string' && t.model ? { ...u.agent_models, [p.agent_id ?? MAIN]: t.model } : u.agent_models;
      if (!main) return { ...u, agent_models };
      return { ...u, agent_models, in_flight: { turn_id: t.turn_id, prompt_id: t.prompt_id, current_prompt_id: t.prompt_id, started_at: t.started_at ?? e.ts, step: 0 } };
    }
    case 'turn.step.started': {
      const step: unknown = e.payload.step;
      if (!main || !u.in_flight || u.in_flight.turn_id !== p.turn_id || typeof step !== 'number') return u;
      return { ...u, in_flight: { ...u.in_flight, step } };
    }
    case 'prompt.steered': {
      // Older journals carried a single prompt_id.
      const s = e.payload as { prompt_id?: string; prompt_ids?: string[] };
      const id = s.prompt_ids?.at(-1) ?? s.prompt_id;
      if (!main || !u.in_flight || !id || (p.turn_id && p.turn_id !== u.in_flight.turn_id)) return u;
      return { ...u, in_flight: { ...u.in_flight, current_prompt_id: id } };
    }
    case 'turn.ended': {
      if (!main) {
        const { [p.agent_id ?? '']: _ended, ...agent_models } = u.agent_models;
        return { ...u, agent_models };
      }
      const in_flight = u.in_flight && u.in_flight.turn_id === e.payload.turn_id ? null : u.in_flight;
      return { ...u, turn_count: u.turn_count + 1, in_flight };
    }
    case 'compaction.completed':
      return main ? compacted(u, e.payload.usage, num(e.payload.kept_chars)) : u;
    case 'session.undone': {
      const undo = undoOf(e.payload);
      return undo.agentId === MAIN ? contextChanged(u, num(undo.contextChars)) : u;
    }
    default:
      return u;
  }
}

/**
 * After a compaction or an undo the last measure no longer describes the context: the count
 * restarts as an estimate of `chars` (the remaining context) until the next step measures again.
 */
function contextChanged(u: SessionUsage, chars: number): SessionUsage {
  const next: SessionUsage = { ...u, measured: false, measured_context: 0, tail_chars: 0, total_chars: chars };
  delete next.last_step_message_id;
  return next;
}

/**
 * A compaction: the context restarts from the messages it kept (`keptChars`); its summary message follows
 * the event and is counted as it is created; its requests' tokens are summed.
 */
function compacted(u: SessionUsage, usage: Partial<Usage> | undefined, keptChars: number): SessionUsage {
  return {
    ...contextChanged(u, keptChars),
    by_model: addTokens(u.by_model, u.agent_models[MAIN], usage ?? {}),
    input_tokens: u.input_tokens + num(usage?.input_tokens), output_tokens: u.output_tokens + num(usage?.output_tokens),
    cache_read_tokens: u.cache_read_tokens + num(usage?.cache_read_tokens), cache_creation_tokens: u.cache_creation_tokens + num(usage?.cache_creation_tokens),
  };
}

/** `by_model` with a step's tokens added under `model` (unchanged when the model is unknown, as in older journals). */
function addTokens(byModel: Record<string, ModelTokens> | undefined, model: string | undefined, usage: Partial<Usage>): Record<string, ModelTokens> {
  const sums = byModel ?? {};
  if (!model) return sums;
  const cur = sums[model] ?? { input_tokens: 0, output_tokens: 0, cache_read_tokens: 0, cache_creation_tokens: 0 };
  return {
    ...sums,
    [model]: {
      input_tokens: cur.input_tokens + num(usage.input_tokens), output_tokens: cur.output_tokens + num(usage.output_tokens),
      cache_read_tokens: cur.cache_read_tokens + num(usage.cache_read_tokens), cache_creation_tokens: cur.cache_creation_tokens + num(usage.cache_creation_tokens),
    },
  };
}
