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

  get(id: string): LiveSessionState | undefined {
    return this.states.get(id);
  }

  set(id: string, state: LiveSessionState): void {
    this.states.set(id, state);
  }

  delete(id: string): void {
    this.states.delete(id);
  }

  isBusy(id: string): boolean {
    return this.states.get(id)?.busy ?? false;
  }
}
