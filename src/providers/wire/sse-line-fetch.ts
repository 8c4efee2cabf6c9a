/**
 * A fetch wrapper that rewrites each line of an SSE answer before the AI SDK parses it (Vertex AI
 * reports some failures as in-stream lines of its own shape; google.ts turns them into errors).
 */
type FetchFn = typeof globalThis.fetch;

/** A fetch whose SSE response lines pass through `rewrite` (which may throw to fail the stream). */
export function sseLineFetch(rewrite: (line: string) => string, inner: FetchFn = globalThis.fetch): FetchFn {
  return async (input, init) => {
    const res = await inner(input, init);
    if (!res.body || !(res.headers.get('content-type') ?? '').includes('text/event-stream')) return res;
    const body = res.body.pipeThrough(new TextDecoderStream()).pipeThrough(lineRewriter(rewrite)).pipeThrough(new TextEncoderStream());
    return new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
  };
}

function lineRewriter(rewrite: (line: string) => string): TransformStream<string, string> {
  let rest = '';
  return new TransformStream({
    transform(chunk, ctl) {
      const lines = (rest + chunk).split('\n');
      rest = lines.pop() ?? '';
      if (lines.length) ctl.enqueue(lines.map(rewrite).join('\n') + '\n');
    },
    flush(ctl) {
      if (rest) ctl.enqueue(rewrite(rest));
    },
  });
}
