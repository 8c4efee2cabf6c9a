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
 * The read-before-edit guard of Edit and Write: per session and agent (each has its own view of the files),
 * what each file looked like when the agent last read it or wrote it. An Edit or Write of an existing file
 * the agent has not read (nor written) is refused, and so is one of a file that changed on disk since: the
 * model reads it first instead of overwriting what it has not seen. A file that does not exist yet may be
 * written (Write creates it, and the agent then knows it). Kept in memory: after a daemon restart the
 * agent reads a file again before changing it. A deleted session's stamps go with it (`forget`).
 */
export class ReadStamps {
  /** Throws the result that sends the model to Read when it never read the file, or the file changed since. */
  async guard(sessionId: string, agentId: string, abs: string, shown: string): Promise<void> {
    const known = this.bySession.get(sessionId)?.get(`${agentId}\0${abs}`);
    const now = await stampOf(abs);
    if (!known) {
      if (now) throw new ToolError(`${shown} has not been read yet in this session; Read it first, then change it (nothing was changed)`);
      return;
    }
    if (!now || now.size !== known.size || now.mtimeNs !== known.mtimeNs) {
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

  forget(sessionId: string): void {
    this.bySession.delete(sessionId);
  }
}
