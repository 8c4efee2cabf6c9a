import { GLOBAL_STREAM, GUI_STREAM } from '../../journal/keys.ts';
import type { JournalEvent } from '../../journal/types.ts';
import type { TurnPlace } from '../../protocol/events/wire.ts';
import { known } from '../contract.ts';
import type { Projection, RecordWrite } from '../projection.ts';

/**
 * One turn of an agent: the engine's id, where it and each of its steps started (stream seqs), when it started, and
 * `o: 'other'` when no user prompt started it (a goal continuation, a subagent's task prompt).
 */
interface TurnEntry { id: string; seq: number; at: number; steps: number[]; o?: 'other' }

/**
 * Where each turn of each agent falls (spec/clients.md F): v1 frames carry `turnId` as the agent's 0-based turn
 * ordinal (the transcript's `t<ordinal>`: every `turn.started` of the agent counts, undone or not) and `step` /
 * `stepId`, but the events name a turn by the engine's id, and tool and approval events name no step. This index
 * answers both, for any event of the stream: the turn by its id (or, for an event that names none, the agent's
 * last turn started at or before its seq), the step by the seqs its steps started at. One record per turn.
 */
export class TurnIndex implements Projection {
  readonly name = 'turn-index';
  readonly version = 1;
  private readonly bySession = new Map<string, Map<string, TurnEntry[]>>();
  /** Prompts accepted and not started yet, by `<session>!<prompt id>`: whether a goal queued each (its turn's origin). */
  private readonly queued = new Map<string, boolean>();

  reset(): void {
    this.bySession.clear();
    this.queued.clear();
  }

  load(key: string, value: unknown): void {
    const [session, agent, n] = key.split('!');
    if (!session || !agent || n === undefined) return;
    this.turns(session, agent)[Number(n)] = value as TurnEntry;
  }

  apply(event: JournalEvent): RecordWrite[] {
    const e = known(event);
    if (e.type === 'event.session.deleted') return this.drop(e.payload.session_id);
    if (event.stream === GLOBAL_STREAM || event.stream === GUI_STREAM) return [];
    if (e.type === 'prompt.accepted') {
      this.queued.set(`${event.stream}!${e.payload.prompt_id}`, e.payload.source === 'goal');
      return [];
    }
    if (e.type === 'prompt.aborted') {
      this.queued.delete(`${event.stream}!${e.payload.prompt_id}`);
      return [];
    }
    if (e.type === 'turn.started') {
      const p = e.payload;
      const agent = p.agent_id ?? 'main';
      const list = this.turns(event.stream, agent);
      const at = Date.parse(p.started_at);
      const key = `${event.stream}!${p.prompt_id}`;
      const goal = this.queued.get(key);
      this.queued.delete(key);
      const other = goal === true || (goal === undefined && agent !== 'main');
      list.push({ id: p.turn_id, seq: event.seq, at: Number.isFinite(at) ? at : Date.parse(event.ts), steps: [], ...(other ? { o: 'other' as const } : {}) });
      return [this.write(event.stream, agent, list.length - 1)];
    }
    if (e.type === 'turn.step.started') {
      const p = e.payload;
      const agent = p.agent_id ?? 'main';
      const list = this.bySession.get(event.stream)?.get(agent);
      const n = list ? lastIndex(list, (t) => t.id === p.turn_id) : -1;
      const t = list?.[n];
      // A retried step starts again under its number: its first start counts.
      if (!t || t.steps.length >= p.step) return [];
      while (t.steps.length < p.step) t.steps.push(event.seq);
      return [this.write(event.stream, agent, n)];
    }
    return [];
  }

  /**
   * The turn an event of `agentId` belongs to, and its step: by the turn id the event names, else the last turn
   * started at or before `seq` (a durable event), else the agent's last turn (a volatile one). The step is the last
   * one started at or before `seq` (the latest without a seq). Undefined when the agent has no such turn.
   */
  place(sessionId: string, agentId: string, turnId: string | undefined, seq: number | undefined): TurnPlace | undefined {
    const list = this.bySession.get(sessionId)?.get(agentId);
    if (!list?.length) return undefined;
    const n = turnId !== undefined ? lastIndex(list, (t) => t.id === turnId)
      : seq !== undefined ? lastIndex(list, (t) => t.seq <= seq) : list.length - 1;
    const t = list[n];
    if (!t) return undefined;
    const steps = seq === undefined ? t.steps.length : t.steps.filter((s) => s <= seq).length;
    return { turn: n, ...(steps ? { step: steps } : {}), startedAt: t.at, origin: t.o ?? 'user' };
  }

  private turns(session: string, agent: string): TurnEntry[] {
    let agents = this.bySession.get(session);
    if (!agents) this.bySession.set(session, (agents = new Map()));
    let list = agents.get(agent);
    if (!list) agents.set(agent, (list = []));
    return list;
  }

  private write(session: string, agent: string, n: number): RecordWrite {
    return { key: `${session}!${agent}!${n}`, value: this.bySession.get(session)!.get(agent)![n]! };
  }

  private drop(session: string): RecordWrite[] {
    const agents = this.bySession.get(session);
    for (const k of this.queued.keys()) if (k.startsWith(`${session}!`)) this.queued.delete(k);
    if (!agents) return [];
    this.bySession.delete(session);
    return [...agents].flatMap(([agent, list]) => list.map((_t, n) => ({ key: `${session}!${agent}!${n}`, delete: true as const })));
  }
}

function lastIndex<T>(list: T[], pred: (x: T) => boolean): number {
  for (let i = list.length - 1; i >= 0; i--) if (pred(list[i]!)) return i;
  return -1;
}
