import { watch, type FSWatcher } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { StringDecoder } from 'node:string_decoder';

const POLL_MS = 100;
const CHUNK = 64 * 1024;

/**
 * Follows a growing log file (like `tail -f`): new bytes are decoded as UTF-8 and
 * handed to `onText` in order. Change notifications come from fs.watch, with a poll
 * as a fallback. `finish()` reads what is left and stops.
 */
export class FileFollower {
  private pos = 0;
  private readonly decoder = new StringDecoder('utf8');
  private reading: Promise<void> = Promise.resolve();
  private pending = false;
  private watcher?: FSWatcher;
  private readonly poll: NodeJS.Timeout;
  private fh?: Promise<FileHandle>;
  private stopped = false;

  constructor(private readonly file: string, private readonly onText: (text: string) => void) {
    try {
      this.watcher = watch(file, () => this.kick());
      this.watcher.on('error', () => undefined);
    } catch {
      // No watcher (unusual file systems): the poll still follows the file.
    }
    this.poll = setInterval(() => this.kick(), POLL_MS);
    this.poll.unref();
  }

  /** Reads everything written so far, then stops following. */
  async finish(): Promise<void> {
    this.stopped = true;
    this.watcher?.close();
    clearInterval(this.poll);
    await this.reading;
    await this.readAvailable();
    const rest = this.decoder.end();
    if (rest) this.onText(rest);
    if (this.fh) await (await this.fh).close().catch(() => undefined);
  }

  private kick(): void {
    if (this.stopped || this.pending) return;
    this.pending = true;
    this.reading = this.reading.then(() => {
      this.pending = false;
      return this.readAvailable();
    }).catch(() => undefined);
  }

  private async readAvailable(): Promise<void> {
    this.fh ??= open(this.file, 'r');
    const fh = await this.fh;
    const buf = Buffer.allocUnsafe(CHUNK);
    for (;;) {
      const { bytesRead } = await fh.read(buf, 0, CHUNK, this.pos);
      if (bytesRead === 0) return;
      this.pos += bytesRead;
      const text = this.decoder.write(buf.subarray(0, bytesRead));
      if (text) this.onText(text);
    }
  }
}
