import { closeSync, existsSync, fstatSync, fsyncSync, ftruncateSync, openSync, readSync, writeSync } from 'node:fs';
import { CHUNK, type TextStore } from '../../projections/search/texts.ts';

/** Appends are gathered up to this many bytes before they are written. */
const PENDING = 256 << 10;

/**
 * The search index's texts in a file (docs/search.md "Persistence"): appended, never rewritten, read back for
 * snippets and literal scans. The file's bytes live in the page cache, not in the daemon's memory.
 */
export class FileTexts implements TextStore {
  private readonly fd: number;
  private flushed: number;
  private pending = Buffer.allocUnsafe(PENDING);
  private pendingLength = 0;
  private chunk?: Buffer;

  /** Opens (or creates) `file` keeping its first `keep` bytes: what a snapshot covers; later bytes are dropped. */
  constructor(file: string, keep: number) {
    // Not 'a+': O_APPEND would ignore the write positions.
    this.fd = openSync(file, existsSync(file) ? 'r+' : 'w+');
    if (fstatSync(this.fd).size < keep) {
      closeSync(this.fd);
      throw new Error('search texts file is shorter than the snapshot says');
    }
    ftruncateSync(this.fd, keep);
    this.flushed = keep;
  }

  get length(): number {
    return this.flushed + this.pendingLength;
  }

  append(text: string): number {
    const at = this.length;
    const need = Buffer.byteLength(text, 'utf8');
    if (this.pendingLength + need > PENDING) this.flush();
    if (need > PENDING) {
      const bytes = Buffer.from(text, 'utf8');
      this.writeAll(bytes, this.flushed);
      this.flushed += bytes.length;
    } else this.pendingLength += this.pending.write(text, this.pendingLength, 'utf8');
    return at;
  }

  read(at: number, end: number): string {
    if (at >= this.flushed) return this.pending.toString('utf8', at - this.flushed, end - this.flushed);
    this.flush();
    const buf = Buffer.allocUnsafe(end - at);
    this.readAll(buf, end - at, at);
    return buf.toString('utf8');
  }

  view(lo: number, n: number): Buffer {
    this.flush();
    this.chunk ??= Buffer.allocUnsafe(CHUNK);
    const buf = n <= this.chunk.length ? this.chunk : Buffer.allocUnsafe(n);
    this.readAll(buf, n, lo);
    return buf.subarray(0, n);
  }

  /** Writes what is gathered and waits for the disk (before a snapshot that counts these bytes). */
  sync(): void {
    this.flush();
    fsyncSync(this.fd);
  }

  close(): void {
    this.flush();
    closeSync(this.fd);
  }

  private flush(): void {
    if (!this.pendingLength) return;
    this.writeAll(this.pending.subarray(0, this.pendingLength), this.flushed);
    this.flushed += this.pendingLength;
    this.pendingLength = 0;
  }

  private writeAll(bytes: Buffer, position: number): void {
    for (let done = 0; done < bytes.length;) done += writeSync(this.fd, bytes, done, bytes.length - done, position + done);
  }

  private readAll(buf: Buffer, n: number, position: number): void {
    for (let done = 0; done < n;) {
      const r = readSync(this.fd, buf, done, n - done, position + done);
      if (r === 0) throw new Error('search texts file is shorter than the index says');
      done += r;
    }
  }
}
