/**
 * Reads a fetch response's body, refusing it as soon as it is larger than `max` bytes (by its
 * content-length, else while it streams): a remote answer never grows the heap past the bound.
 */
export async function readBoundedBody(res: Response, max: number, tooLarge: () => Error): Promise<Buffer> {
  if (Number(res.headers.get('content-length') ?? 0) > max) throw tooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of (res.body ?? []) as AsyncIterable<Uint8Array>) {
    size += c.length;
    if (size > max) {
      await res.body?.cancel().catch(() => undefined);
      throw tooLarge();
    }
    chunks.push(Buffer.from(c));
  }
  return Buffer.concat(chunks);
}
