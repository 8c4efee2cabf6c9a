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

/** A promise the test settles itself (`open`): a fixture reply held until then, with no timing involved. */
export function gate(): { promise: Promise<void>; open(): void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

/**
 * `fetch` whose "fetch failed" names its cause (ECONNRESET, "other side closed", ...): undici hides it in
 * `cause`, and a failure report without it cannot tell a keep-alive race from a daemon that went away.
 *
 * A request sent on a pooled connection at the moment the server closes it as idle (its 5 s keep-alive) is reset
 * before the server read it: on a loaded machine the test process can stall past undici's 1 s margin (seen: a POST
 * :compact reset at load 24). The daemon never resets a request it has read, so such a request is sent once more,
 * on a new connection, as browsers do; a second failure is reported.
 */
export async function fetchNamed(url: string, init?: RequestInit): Promise<Response> {
  try {
    return await fetch(url, init);
  } catch (err) {
    if (!staleConnection(err) || !replayable(init)) throw named(err, url, init);
    try {
      return await fetch(url, init);
    } catch (again) {
      throw named(again, url, init);
    }
  }
}

/** A reset or close of the connection before any response: the keep-alive race above. */
function staleConnection(err: unknown): boolean {
  const code = (err as { cause?: { code?: string } }).cause?.code;
  return code === 'ECONNRESET' || code === 'UND_ERR_SOCKET' || code === 'EPIPE';
}

/** Bodies that can be sent twice (a stream cannot). */
function replayable(init?: RequestInit): boolean {
  const body = init?.body;
  return body === undefined || body === null || typeof body === 'string' || body instanceof Uint8Array || body instanceof URLSearchParams;
}

function named(err: unknown, url: string, init?: RequestInit): Error {
  const cause = (err as { cause?: { code?: string; message?: string } }).cause;
  if (!cause) return err as Error;
  return new Error(`${(err as Error).message} (${init?.method ?? 'GET'} ${url}): ${cause.code ?? ''} ${cause.message ?? ''}`.trim(), { cause: err });
}
