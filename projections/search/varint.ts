/** The postings' one integer codec: unsigned LEB128 varints (7 bits per byte, low groups first). */

/** Bytes of `v` as a varint. */
export function varintSize(v: number): number {
  return v < 0x80 ? 1 : v < 0x4000 ? 2 : v < 0x200000 ? 3 : v < 0x10000000 ? 4 : 5;
}

/** Writes `v` as a varint at `out[at]`; the position after it. */
export function putVarint(out: Uint8Array, at: number, v: number): number {
  while (v >= 0x80) {
    out[at++] = (v & 0x7f) | 0x80;
    v >>>= 7;
  }
  out[at++] = v;
  return at;
}

/** Reads the varints of bytes[at, end) forward, one at a time. */
export class VarintReader {
  constructor(
    private readonly bytes: Uint8Array,
    private at: number,
    private readonly end: number,
  ) {}

  get done(): boolean {
    return this.at >= this.end;
  }

  /** The next value (call only while not `done`). */
  read(): number {
    const b = this.bytes;
    let at = this.at;
    let byte = b[at++];
    let v = byte & 0x7f;
    for (let shift = 7; byte & 0x80; shift += 7) {
      byte = b[at++];
      v += (byte & 0x7f) * 2 ** shift;
    }
    this.at = at;
    return v;
  }
}

/** The sum of the varints in bytes[at, end) (a slice of gaps: its last id). */
export function sumVarints(bytes: Uint8Array, at: number, end: number): number {
  const r = new VarintReader(bytes, at, end);
  let sum = 0;
  while (!r.done) sum += r.read();
  return sum;
}
