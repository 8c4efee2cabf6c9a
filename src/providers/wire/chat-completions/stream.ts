import type { IncomingMessage } from 'node:http';
import { createParser } from 'eventsource-parser';
import { classifyError, httpError } from '../errors.ts';
import { postJson } from '../http-post.ts';
import type { ModelStreamPart, WireError, WireTrace } from '../types.ts';
import { ChunkMapper } from './chunks.ts';

/** Parts waiting for the consumer above this count pause the socket until it catches up. */
const HIGH_WATER = 256;
/** Error bodies are read up to this size for their message. */
const MAX_ERROR_BODY = 64 * 1024;

/**
 * One streamed chat completion: POSTs `body` and yields the answer's parts as they arrive. The
 * SSE framing is eventsource-parser's; each `data:` payload is mapped by ChunkMapper. This path
 * reads the node:http answer directly (no web streams or per-chunk schema validation between the
 * socket and the engine), which is most of the CPU a streamed answer costs the daemon. Never
 * throws: every failure, abort included, becomes a final `error` part.
 */
export async function* streamChatCompletion(
  url: URL, headers: Record<string, string>, body: string, mapper: ChunkMapper, signal: AbortSignal, trace?: WireTrace,
): AsyncGenerator<ModelStreamPart> {
  let res: IncomingMessage | undefined;
  let finished = false;
  try {
    if (signal.aborted) throw signal.reason;
    res = await postJson(url, headers, body, signal, trace);
    if ((res.statusCode ?? 0) < 200 || (res.statusCode ?? 0) >= 300) {
      yield { type: 'error', error: await failure(res, signal) };
      return;
    }
    trace?.('wire.doStreamed');
    for await (const part of readEvents(res, mapper, signal, trace)) {
      if (part.type === 'finish') finished = true;
      yield part;
    }
  } catch (err) {
    yield { type: 'error', error: classifyError(err, signal) };
  } finally {
    if (res && !res.complete) {
      // After the finish the rest of the body (`[DONE]`, the chunked end) is drained so the
      // keep-alive connection goes back to the pool; an early stop or an error drops the request.
      if (finished) res.resume();
      else res.destroy();
    }
  }
}

/** The answer's SSE events as parts, batched per socket read so the consumer awaits once per read. */
async function* readEvents(res: IncomingMessage, mapper: ChunkMapper, signal: AbortSignal, trace?: WireTrace): AsyncGenerator<ModelStreamPart> {
  const queue = new PartQueue(res);
  let ended = false;
  const finish = () => {
    if (ended) return;
    ended = true;
    const out: ModelStreamPart[] = [];
    mapper.end(out);
    queue.push(out, true);
  };
  const parser = createParser({
    onEvent: (ev) => {
      if (ended) return;
      if (ev.data === '[DONE]') return finish();
      const out: ModelStreamPart[] = [];
      mapper.map(ev.data, out);
      const failed = out.length > 0 && out[out.length - 1].type === 'error';
      if (failed) ended = true;
      queue.push(out, failed);
    },
  });
  res.setEncoding('utf8');
  res.on('data', (text: string) => {
    trace?.('fetch.data');
    parser.feed(text);
  });
  res.once('end', () => {
    parser.reset({ consume: true });
    finish();
  });
  res.once('close', () => {
    if (ended) return;
    ended = true;
    const error = signal.aborted ? classifyError(signal.reason, signal) : { kind: 'transient' as const, message: 'connection error: the answer was cut off' };
    queue.push([{ type: 'error', error }], true);
  });
  for (;;) {
    const { parts, done } = await queue.take();
    for (const p of parts) yield p;
    if (done) return;
  }
}

/** A producer/consumer hand-off of parts with socket backpressure. */
class PartQueue {
  private parts: ModelStreamPart[] = [];
  private done = false;
  private wake: (() => void) | undefined;

  constructor(private readonly res: IncomingMessage) {}

  push(parts: ModelStreamPart[], last: boolean): void {
    if (this.done) return;
    for (const p of parts) this.parts.push(p);
    if (last) this.done = true;
    if (this.parts.length > HIGH_WATER && !this.done) this.res.pause();
    this.wake?.();
  }

  async take(): Promise<{ parts: ModelStreamPart[]; done: boolean }> {
    while (!this.parts.length && !this.done) await new Promise<void>((ok) => (this.wake = ok));
    this.wake = undefined;
    const parts = this.parts;
    this.parts = [];
    if (!this.done && this.res.isPaused()) this.res.resume();
    return { parts, done: this.done };
  }
}

/** A non-2xx answer: its body (JSON `error.message` when present) classified by status. */
async function failure(res: IncomingMessage, signal: AbortSignal): Promise<WireError> {
  let text = '';
  try {
    res.setEncoding('utf8');
    for await (const chunk of res) {
      if (text.length < MAX_ERROR_BODY) text += chunk as string;
    }
  } catch (err) {
    if (signal.aborted) return classifyError(err, signal);
  }
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(res.headers)) if (typeof v === 'string') headers[k] = v;
  return httpError(res.statusCode ?? 0, res.statusMessage ?? '', headers, text);
}
