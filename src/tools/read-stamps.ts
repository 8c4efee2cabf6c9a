import { stat } from 'node:fs/promises';
import { ToolError } from './types.ts';

/** What a file looked like on disk when an agent last read or wrote it: size and modification time (ns). */
interface Stamp {
  size: bigint;
  mtimeNs: bigint;
}

async function stampOf(abs: string): Promise<Stamp | null> {
  const st = await stat(abs, { bigint: true }).catch(() => null);
  return st?.isFile() ? { size: st.size, mtimeNs: st.mtimeNs } : null;
}

/**
 * The staleness guard of Edit and Write: per session and agent (each has its own view of the files),
 * what each file looked like when the agent last read it or wrote it. An Edit or Write to a file
 * that changed on disk since then is refused, so the model reads it again instead of overwriting a
 * change it has not seen. Kept in memory: after a restart, or for a file the agent never read,
 * nothing is known and nothing is refused. A deleted session's stamps go with it (`forget`).
 */
export class ReadStamps {
  /** Throws the result that sends the model back to Read when the file changed since the agent last saw it. */
  async guard(sessionId: string, agentId: string, abs: string, shown: string): Promise<void> {
    if (await this.changedSince(sessionId, agentId, abs)) {
      throw new ToolError(`${shown} has changed on disk since you last read it; Read it again before changing it (nothing was changed)`);
    }
  }

  private readonly bySession = new Map<string, Map<string, Stamp>>();

  /** Records the file as the agent now knows it (after a Read, or after its own Edit/Write). */
  async seen(sessionId: string, agentId: string, abs: string): Promise<void> {
    const stamp = await stampOf(abs);
    let files = this.bySession.get(sessionId);
    if (!files) this.bySession.set(sessionId, (files = new Map()));
    if (stamp) files.set(`${agentId}\0${abs}`, stamp);
    else files.delete(`${agentId}\0${abs}`);
  }

  /** True when the agent read or wrote the file and it has changed (or gone) on disk since. */
  async changedSince(sessionId: string, agentId: string, abs: string): Promise<boolean> {
    const known = this.bySession.get(sessionId)?.get(`${agentId}\0${abs}`);
    if (!known) return false;
    const now = await stampOf(abs);
    return !now || now.size !== known.size || now.mtimeNs !== known.mtimeNs;
  }

  forget(sessionId: string): void {
    this.bySession.delete(sessionId);
  }
}
