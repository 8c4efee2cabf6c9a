import type { JournalEvent } from '../../../journal/types.ts';
import type { Message } from '../../../protocol/events/turns.ts';
import type { PromptInput } from '../../../protocol/schemas/prompts.ts';
import { EngineEvents } from '../../engine/events.ts';
import { MAIN_AGENT } from '../../engine/turn.ts';

/** The prompt of a follow-up turn: the completions themselves are the notes journaled just before it. */
export const STEER_PROMPT = 'Background work you started has ended; its results are in the task notifications above. '
  + 'Continue the task with them.';

export interface SteerDeps {
  /** Submits a prompt to the session (the prompt intake: its checks and journaling, as POST /prompts). */
  submit(body: PromptInput): Promise<unknown>;
  /** The session has a main turn running or queued (a note journaled meanwhile is seen by its next request). */
  turnActive(): boolean;
  warn(line: string): void;
}

/**
 * `print_background_mode = steer` on the engine main has: the task notifier (src/tasks/notify.ts) journals a
 * completion's note as a user message once the session's turn is over, and never starts a turn itself. This
 * reaction starts the follow-up turn: each note journaled while no turn of the session is active or queued is
 * followed by a prompt (STEER_PROMPT), at most `maxTurns` of them; a note past the limit is counted as unfed, so
 * the run reports the limit (src/cli/print/background.ts).
 */
export class Steerer {
  private started = 0;
  private inFlight = 0;
  private unfedNotes = 0;
  private failure: string | undefined;

  constructor(private readonly sessionId: string, private readonly maxTurns: number, private readonly deps: SteerDeps) {}

  /** A follow-up prompt is being submitted (the wait counts it as pending work). */
  get submitting(): boolean {
    return this.inFlight > 0;
  }

  /** Notes no follow-up turn could take because `maxTurns` was reached. */
  get unfed(): number {
    return this.unfedNotes;
  }

  /** Why a follow-up prompt was refused, if one was. */
  get refused(): string | undefined {
    return this.failure;
  }

  readonly onCommitted = (events: JournalEvent[]): Promise<unknown> | void => {
    let notes = 0;
    for (const e of events) {
      if (e.stream !== this.sessionId || e.type !== EngineEvents.messageCreated) continue;
      const p = e.payload as { agent_id?: string; message: Message };
      if ((p.agent_id ?? MAIN_AGENT) === MAIN_AGENT && p.message.metadata?.task_notification !== undefined) notes += 1;
    }
    // A turn still running or queued takes the note in its next model request: no follow-up needed.
    if (!notes || this.inFlight > 0 || this.deps.turnActive()) return;
    if (this.started >= this.maxTurns) {
      this.unfedNotes += notes;
      return;
    }
    this.started += 1;
    this.inFlight += 1;
    return this.deps.submit({ content: [{ type: 'text', text: STEER_PROMPT }] } as PromptInput)
      .catch((err: Error) => {
        this.failure = err.message;
        this.deps.warn(`the follow-up turn for a background completion was refused: ${err.message}`);
      })
      .finally(() => (this.inFlight -= 1));
  };
}
