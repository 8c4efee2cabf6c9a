/**
 * `reasoning_key` support for chat_compat. @ai-sdk/openai-compatible reads reasoning only from
 * `delta.reasoning_content` or `delta.reasoning`; gateways that use another field name get it
 * renamed here, in a fetch wrapper that rewrites each SSE `data:` JSON line of the response
 * (and, for replayed history, the request side renames `reasoning_content` back to the gateway's key).
 */
type FetchFn = typeof globalThis.fetch;

export function reasoningKeyFetch(key: string, inner: FetchFn = globalThis.fetch): FetchFn {
  return sseLineFetch((line) => rewriteLine(line, key), inner);
}

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

function rewriteLine(line: string, key: string): string {
  if (!line.startsWith('data:') || !line.includes(`"${key}"`)) return line;
  try {
    const json = JSON.parse(line.slice(5)) as { choices?: Array<{ delta?: Record<string, unknown>; message?: Record<string, unknown> }> };
    for (const c of json.choices ?? []) {
      for (const d of [c.delta, c.message]) {
        if (d && key in d) {
          d.reasoning_content = d[key];
          delete d[key];
        }
      }
    }
    return `data: ${JSON.stringify(json)}`;
  } catch {
    return line;
  }
}

/** Request side: history replayed as `reasoning_content` goes out under the gateway's key. */
export function renameOutgoingReasoning(key: string) {
  return (body: Record<string, unknown>): Record<string, unknown> => {
    const messages = body.messages as Array<Record<string, unknown>> | undefined;
    if (!messages) return body;
    return {
      ...body,
      messages: messages.map((m) => {
        if (!('reasoning_content' in m)) return m;
        const { reasoning_content, ...restMsg } = m;
        return { ...restMsg, [key]: reasoning_content };
      }),
    };
  };
}
