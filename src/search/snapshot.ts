import { closeSync, fsyncSync, openSync, readSync, renameSync, writeSync } from 'node:fs';
import { crc32 } from 'node:zlib';
import { COLUMN_TYPES, roomy, type ColumnName, type Columns } from '../../projections/search/columns.ts';
import type { EngineState } from '../../projections/search/engine.ts';

/** Bumped when (2: postings as LEB128 varint gaps plus a count per term) the index's content or layout changes (documents.ts, tokenize.ts, engine.ts): older snapshots are rebuilt. */
export const SNAPSHOT_VERSION = 2;
const MAGIC = Buffer.from('SVCSRCH\n');
/** magic, header length (u32), crc32 of everything after this prefix (u32). */
const PREFIX = MAGIC.length + 8;

interface Header {
  v: number;
  /** Bytes of the texts file the index refers to. */
  texts: number;
  state: Omit<EngineState, 'postingsStart' | 'postingsCount' | 'postings' | 'columns'>;
  sizes: { postingsStart: number; postingsCount: number; postings: number; columns: Record<ColumnName, number> };
}

const bytesOf = (a: ArrayBufferView) => Buffer.from(a.buffer, a.byteOffset, a.byteLength);

/**
 * Writes the index (everything but the texts) to `file` atomically: a temp file, fsync, rename. Layout: the
 * prefix, a JSON header (sessions, terms, journal positions, section sizes), then the postings (byte offsets,
 * counts per term, the varint-coded bytes) and the
 * per-document columns as raw little-endian arrays.
 */
export function writeSnapshot(file: string, state: EngineState, textsLength: number): void {
  const { postingsStart, postingsCount, postings, columns, ...rest } = state;
  const names = Object.keys(COLUMN_TYPES) as ColumnName[];
  const header: Header = {
    v: SNAPSHOT_VERSION, texts: textsLength, state: rest,
    sizes: { postingsStart: postingsStart.length, postingsCount: postingsCount.length, postings: postings.length, columns: Object.fromEntries(names.map((n) => [n, columns[n].length])) as Header['sizes']['columns'] },
  };
  const sections = [Buffer.from(JSON.stringify(header), 'utf8'), bytesOf(postingsStart), bytesOf(postingsCount), bytesOf(postings), ...names.map((n) => bytesOf(columns[n]))];
  let crc = 0;
  for (const s of sections) crc = crc32(s, crc);
  const prefix = Buffer.alloc(PREFIX);
  MAGIC.copy(prefix);
  prefix.writeUInt32LE(sections[0].length, MAGIC.length);
  prefix.writeUInt32LE(crc, MAGIC.length + 4);
  const tmp = `${file}.tmp`;
  const fd = openSync(tmp, 'w');
  try {
    let at = 0;
    for (const s of [prefix, ...sections]) for (let done = 0; done < s.length;) {
      const n = writeSync(fd, s, done, s.length - done, at);
      done += n;
      at += n;
    }
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, file);
}

/** Reads a snapshot; throws when it is missing, of another version, truncated or corrupt. */
export function readSnapshot(file: string): { state: EngineState; textsLength: number } {
  const fd = openSync(file, 'r');
  try {
    let at = 0;
    let crc = 0;
    const fill = (buf: Buffer, counted = true) => {
      for (let done = 0; done < buf.length;) {
        const n = readSync(fd, buf, done, buf.length - done, at);
        if (n === 0) throw new Error('search index snapshot is truncated');
        done += n;
        at += n;
      }
      if (counted) crc = crc32(buf, crc);
    };
    const prefix = Buffer.alloc(PREFIX);
    fill(prefix, false);
    if (!prefix.subarray(0, MAGIC.length).equals(MAGIC)) throw new Error('not a search index snapshot');
    const headerBytes = Buffer.alloc(prefix.readUInt32LE(MAGIC.length));
    fill(headerBytes);
    const header = JSON.parse(headerBytes.toString('utf8')) as Header;
    if (header.v !== SNAPSHOT_VERSION) throw new Error(`search index snapshot version ${header.v}, expected ${SNAPSHOT_VERSION}`);
    const read = <T extends ArrayBufferView>(a: T): T => {
      fill(bytesOf(a));
      return a;
    };
    const postingsStart = read(new Uint32Array(header.sizes.postingsStart));
    const postingsCount = read(new Uint32Array(header.sizes.postingsCount));
    // Roomy like the engine's own postings (engine.ts `roomy`): freeing it at the next merge must not raise
    // glibc's mmap threshold.
    const postings = read(roomy(Uint8Array, 1, header.sizes.postings).subarray(0, header.sizes.postings));
    const columns = {} as Record<ColumnName, ArrayBufferView>;
    for (const [name, T] of Object.entries(COLUMN_TYPES) as Array<[ColumnName, (typeof COLUMN_TYPES)[ColumnName]]>) columns[name] = read(new T(header.sizes.columns[name]));
    if (crc !== prefix.readUInt32LE(MAGIC.length + 4)) throw new Error('search index snapshot checksum mismatch');
    const docs = columns.textAt.byteLength / 8;
    const s = header.state;
    if (postingsStart.length !== s.terms.length + 1 || postingsCount.length !== s.terms.length || postingsStart[s.terms.length] !== postings.length
      || Object.values(columns).some((c) => c.byteLength / (c as Uint8Array).BYTES_PER_ELEMENT !== docs)) throw new Error('search index snapshot sizes disagree');
    return { state: { ...s, postingsStart, postingsCount, postings, columns: columns as Columns }, textsLength: header.texts };
  } finally {
    closeSync(fd);
  }
}
