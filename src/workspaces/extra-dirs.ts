/**
 * Runtime state behind add-dir: the in-memory directory set of each workspace
 * (`persist: false`, shared by all its sessions, lost on restart) and a queue
 * per project config file so concurrent add-dir calls do not lose each other's
 * read-modify-write of `local.toml`. One instance per daemon, built by startServer.
 */
export class WorkspaceDirs {
  private readonly memory = new Map<string, string[]>();
  private readonly queues = new Map<string, Promise<unknown>>();

  /** The in-memory directories of a workspace, in the order they were added. */
  inMemory(workspaceId: string): string[] {
    return [...(this.memory.get(workspaceId) ?? [])];
  }

  add(workspaceId: string, dir: string): void {
    const dirs = this.memory.get(workspaceId) ?? [];
    if (!dirs.includes(dir)) dirs.push(dir);
    this.memory.set(workspaceId, dirs);
  }

  /** Drops a workspace's runtime set (on unregister). */
  forget(workspaceId: string): void {
    this.memory.delete(workspaceId);
  }

  /** Runs `fn` after every earlier call queued under the same key has settled. */
  serial<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const prev = this.queues.get(key) ?? Promise.resolve();
    const run = prev.then(fn);
    const tail = run.then(() => undefined, () => undefined);
    this.queues.set(key, tail);
    void tail.then(() => {
      if (this.queues.get(key) === tail) this.queues.delete(key);
    });
    return run;
  }
}
