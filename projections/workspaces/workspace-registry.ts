import type { JournalEvent } from '../../journal/types.ts';
import { GLOBAL_STREAM } from '../../journal/keys.ts';
import { known, type WorkspaceState } from '../contract.ts';
import type { Projection, RecordWrite } from '../projection.ts';

export interface WorkspaceRecord extends WorkspaceState {
  trusted: boolean;
}

/** Registered workspaces, from the global stream. Session counts come from the session index. */
export class WorkspaceRegistry implements Projection {
  readonly name = 'workspaces';
  readonly version = 1;
  private byId = new Map<string, WorkspaceRecord>();

  reset(): void {
    this.byId.clear();
  }

  load(_key: string, value: unknown): void {
    const w = value as WorkspaceRecord;
    this.byId.set(w.id, w);
  }

  apply(event: JournalEvent): RecordWrite[] {
    if (event.stream !== GLOBAL_STREAM) return [];
    const e = known(event);
    switch (e.type) {
      case 'event.workspace.created':
      case 'event.workspace.updated': {
        const p = e.payload;
        const prev = this.byId.get(p.id);
        const next: WorkspaceRecord = {
          id: p.id, root: p.root, name: p.name, created_at: p.created_at, last_opened_at: p.last_opened_at,
          trusted: prev?.trusted ?? false,
        };
        this.byId.set(next.id, next);
        return [{ key: next.id, value: next }];
      }
      case 'event.workspace.deleted': {
        const { workspace_id } = e.payload;
        if (!this.byId.delete(workspace_id)) return [];
        return [{ key: workspace_id, delete: true }];
      }
      case 'workspace.trust_changed': {
        const { workspace_id, trusted } = e.payload;
        const prev = this.byId.get(workspace_id);
        if (!prev) return [];
        const next = { ...prev, trusted };
        this.byId.set(workspace_id, next);
        return [{ key: workspace_id, value: next }];
      }
      default:
        return [];
    }
  }

  get(id: string): WorkspaceRecord | undefined {
    return this.byId.get(id);
  }

  byRoot(root: string): WorkspaceRecord | undefined {
    for (const w of this.byId.values()) if (w.root === root) return w;
    return undefined;
  }

  all(): WorkspaceRecord[] {
    return [...this.byId.values()];
  }

  /** Merges a workspace seen in another daemon's export (never persisted here). */
  mergeForeign(w: WorkspaceRecord): void {
    if (!this.byId.has(w.id)) this.byId.set(w.id, w);
  }
}
