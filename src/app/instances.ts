import type { InstanceRecord } from './home.ts';

/**
 * Other daemons running on the same home, and the sessions they hold. STUB:
 * reconciliation (export/import of session indexes) is built in instances work.
 */
export class Instances {
  private others = new Map<string, InstanceRecord>();

  setOthers(list: InstanceRecord[]): void {
    this.others = new Map(list.map((r) => [r.server_id, r]));
  }

  baseUrlOf(serverId: string | undefined): string | null {
    return (serverId && this.others.get(serverId)?.base_url) || null;
  }
}
