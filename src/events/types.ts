/** Event type names, one constant per fact. See src/events/registry.ts for streams and schemas. */
export const SessionEvents = {
  created: 'session.created',
  profileUpdated: 'session.profile_updated',
  archived: 'session.archived',
  restored: 'session.restored',
  runtimeBound: 'session.runtime_bound',
  goalUpdated: 'goal.updated',
} as const;

export const GlobalEvents = {
  sessionCreated: 'event.session.created',
  sessionArchived: 'event.session.archived',
  sessionMetaUpdated: 'session.meta.updated',
  workspaceCreated: 'event.workspace.created',
  workspaceUpdated: 'event.workspace.updated',
  workspaceDeleted: 'event.workspace.deleted',
  workspaceTrustChanged: 'workspace.trust_changed',
  configChanged: 'event.config.changed',
  modelCatalogChanged: 'event.model_catalog.changed',
} as const;

export const GuiEvents = {
  itemSet: 'gui.item_set',
  itemRemoved: 'gui.item_removed',
  cleared: 'gui.cleared',
} as const;

/** The persisted state of a session, as carried by `session.created`. */
export interface SessionState {
  id: string;
  workspace_id: string;
  cwd: string;
  title: string;
  /** `custom` once a user set it; a custom title wins over generated ones. */
  title_source: 'none' | 'custom' | 'generated';
  created_at: string;
  updated_at: string;
  archived: boolean;
  archived_at?: string;
  last_prompt?: string;
  last_turn_reason?: 'completed' | 'cancelled' | 'failed';
  metadata: Record<string, unknown>;
  agent_config: Record<string, unknown>;
  parent_id?: string;
  forked_from?: string;
  runtime_id: string;
  goal?: GoalSnapshot | null;
}

/** Core "Goal snapshot" (camelCase keys, as on the wire). */
export interface GoalSnapshot {
  goalId: string;
  objective: string;
  completionCriterion?: string;
  status: 'active' | 'paused' | 'blocked' | 'complete';
  turnsUsed: number;
  tokensUsed: number;
  wallClockMs: number;
  budget: {
    tokens: { limit: number; remaining: number; reached: boolean } | null;
    turns: { limit: number; remaining: number; reached: boolean } | null;
    wallClockMs: { limit: number; remaining: number; reached: boolean } | null;
  };
  terminalReason?: string;
}

export interface SessionCreatedPayload {
  session: SessionState;
}

export interface ProfileUpdatedPayload {
  title?: string;
  metadata?: Record<string, unknown>;
  agent_config?: Record<string, unknown>;
}

export interface WorkspaceState {
  id: string;
  root: string;
  name: string;
  created_at: string;
  last_opened_at: string;
}
