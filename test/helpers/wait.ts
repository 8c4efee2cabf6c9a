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

/**
 * `fetch` whose "fetch failed" names its cause (ECONNRESET, "other side closed", ...): undici hides it in
 * `cause`, and a failure report without it cannot tell a keep-alive race from a daemon that went away.
 */
export async function fetchNamed(url: string, init?: RequestInit): Promise<Response> {
  try {
    return await fetch(url, init);
  } catch (err) {
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    if (!cause) throw err;
    throw new Error(`${(err as Error).message} (${init?.method ?? 'GET'} ${url}): ${cause.code ?? ''} ${cause.message ?? ''}`.trim(), { cause: err });
  }
}
