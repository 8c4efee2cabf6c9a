import * as v from 'valibot';
import { WorkspaceObject } from '../schemas/workspaces.ts';
import { defineEvent } from './define.ts';

/** Workspace registration, on the global stream. */

/** What the workspace registry keeps of a workspace (the wire object without its live session count). */
export type WorkspaceState = Omit<v.InferOutput<typeof WorkspaceObject>, 'session_count'>;

const created = defineEvent({
  type: 'event.workspace.created', stream: 'global', durability: 'durable', receivers: 'broadcast', transcript: 'none',
  summary: 'A workspace was registered; the payload is the workspace object, also nested as `workspace`',
  payload: WorkspaceObject,
  nest: 'workspace',
});

const updated = defineEvent({
  type: 'event.workspace.updated', stream: 'global', durability: 'durable', receivers: 'broadcast', transcript: 'none',
  summary: 'A workspace changed (also when a session creation touches it); the payload is the workspace object, also nested as `workspace`',
  payload: WorkspaceObject,
  nest: 'workspace',
});

const deleted = defineEvent({
  type: 'event.workspace.deleted', stream: 'global', durability: 'durable', receivers: 'broadcast', transcript: 'none',
  summary: 'A workspace was removed',
  payload: v.object({ workspace_id: v.string(), root: v.string() }),
});

/** Not one of the spec's broadcasts: the seam where project config loading hooks in. */
const trustChanged = defineEvent({
  type: 'workspace.trust_changed', stream: 'global', durability: 'durable', receivers: 'internal', transcript: 'none',
  summary: 'A workspace was trusted or untrusted',
  payload: v.object({ workspace_id: v.string(), trusted: v.boolean() }),
});

export const WORKSPACE_EVENTS = [created, updated, deleted, trustChanged] as const;
