import { readdir, readFile } from 'node:fs/promises';

/** Sends `signal` to a process group; false when the group is already gone. */
export function signalGroup(pgid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ESRCH') return false;
    throw err;
  }
}

/** Session id of a process from /proc/<pid>/stat (the 4th field after the command name); null when unreadable. */
async function sessionOf(pid: string): Promise<number | null> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[3]);
  } catch {
    return null; // exited meanwhile, or no procfs
  }
}

/**
 * Pids of the processes in session `sid` (Linux procfs; empty elsewhere).
 * A PTY shell leads its own session, so this finds job-control children that
 * moved to other process groups, and `nohup`'d jobs, which a group kill misses.
 */
export async function sessionMembers(sid: number): Promise<number[]> {
  let entries: string[];
  try {
    entries = await readdir('/proc');
  } catch {
    return [];
  }
  const pids = entries.filter((e) => /^\d+$/.test(e) && Number(e) !== process.pid);
  const sids = await Promise.all(pids.map(sessionOf));
  return pids.filter((_, i) => sids[i] === sid).map(Number);
}

/** Signals every remaining member of session `sid`; ignores those that exit meanwhile. */
export async function signalSession(sid: number, signal: NodeJS.Signals): Promise<void> {
  for (const pid of await sessionMembers(sid)) {
    try {
      process.kill(pid, signal);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ESRCH') throw err;
    }
  }
}
