/**
 * Polls `probe` until it returns a truthy value, and returns that value: the wait for a condition
 * that settles asynchronously where no event announces it. Fails after `timeoutMs`, naming `what`.
 */
export async function until<T>(probe: () => T | Promise<T>, timeoutMs = 30_000, what = 'condition'): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > end) throw new Error(`${what} not met in ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 10));
  }
}
