/** Runs `task(i)` for i in [0, count) with at most `concurrency` in flight; rejects on the first failure. */
export async function runBounded(count: number, concurrency: number, task: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  let failed: unknown;
  const worker = async () => {
    while (failed === undefined && next < count) {
      const i = next++;
      try {
        await task(i);
      } catch (err) {
        failed ??= err;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
  if (failed !== undefined) throw failed;
}
