/** What only a loaded (live) session knows; cold sessions have none of it. */
export interface LiveSessionState {
  busy: boolean;
  main_turn_active: boolean;
  pending_interaction: 'none' | 'approval' | 'question';
  /** Model alias bound while live. */
  model: string | null;
}

/**
 * Live state of sessions loaded in this process. The engine fills it; until a
 * session is loaded it reads as cold (not busy, no pending interaction).
 */
export class LiveSessions {
  private states = new Map<string, LiveSessionState>();
  /** Work besides the main turn (background tasks, other agents' turns), by session. */
  private work = new Map<string, Set<string>>();

  get(id: string): LiveSessionState | undefined {
    return this.states.get(id);
  }

  /** Stores the state; `busy` is derived (Core: any agent has an active turn or background task). */
  set(id: string, state: LiveSessionState): void {
    this.states.set(id, { ...state, busy: state.main_turn_active || (this.work.get(id)?.size ?? 0) > 0 });
  }

  /** An unloaded session: its live state goes; its last status stays (the next change's `previous_status`). */
  delete(id: string): void {
    this.states.delete(id);
    this.work.delete(id);
  }

  /** A deleted session: nothing of it is kept. */
  forget(id: string): void {
    this.delete(id);
    this.statuses.delete(id);
  }

  /** The status last journaled for a session (status_changed `previous_status`). */
  private statuses = new Map<string, string>();

  /** Records `status` as the session's last journaled status; returns the one before. */
  swapStatus<S extends string>(id: string, status: S): S | undefined {
    const prev = this.statuses.get(id) as S | undefined;
    this.statuses.set(id, status);
    return prev;
  }

  /** Marks a unit of work running (`on`) or done; true when the session's `busy` flipped. */
  setWork(id: string, key: string, on: boolean): boolean {
    const before = this.isBusy(id);
    let keys = this.work.get(id);
    if (on) {
      if (!keys) this.work.set(id, (keys = new Set()));
      keys.add(key);
    } else {
      keys?.delete(key);
      if (keys && keys.size === 0) this.work.delete(id);
    }
    const prev = this.states.get(id) ?? { busy: false, main_turn_active: false, pending_interaction: 'none' as const, model: null };
    this.set(id, prev);
    return before !== this.isBusy(id);
  }

  isBusy(id: string): boolean {
    return this.states.get(id)?.busy ?? false;
  }
}
