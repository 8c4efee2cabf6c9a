import type { EventType } from './registry.ts';

/** Event type names, one constant per fact; streams and schemas are in the registry (protocol/events/registry.ts). */
export const SessionEvents = {
  created: 'session.created',
  profileUpdated: 'session.profile_updated',
  archived: 'session.archived',
  restored: 'session.restored',
  runtimeBound: 'session.runtime_bound',
  goalUpdated: 'goal.updated',
} as const satisfies Record<string, EventType>;

export const GlobalEvents = {
  sessionCreated: 'event.session.created',
  sessionArchived: 'event.session.archived',
  sessionDeleted: 'event.session.deleted',
  sessionMetaUpdated: 'session.meta.updated',
  workspaceCreated: 'event.workspace.created',
  workspaceUpdated: 'event.workspace.updated',
  workspaceDeleted: 'event.workspace.deleted',
  workspaceTrustChanged: 'workspace.trust_changed',
  configChanged: 'event.config.changed',
  modelCatalogChanged: 'event.model_catalog.changed',
  pluginChanged: 'event.plugin.changed',
  capabilityChanged: 'event.capability.changed',
} as const satisfies Record<string, EventType>;

export const GuiEvents = {
  itemSet: 'gui.item_set',
  itemRemoved: 'gui.item_removed',
  cleared: 'gui.cleared',
} as const satisfies Record<string, EventType>;
