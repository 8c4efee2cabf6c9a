import { deflateRawSync, inflateRawSync } from 'node:zlib';
import type { RecOp } from '../records-state.ts';

/**
 * The op journal of one agent of a live fold (docs/transcript.md "Ops"): its batch counter (+1 per batch, delta
 * batches included) and its newest batches as sent, for `transcript_since` and GET /transcript/ops.
 */

/**
 * Batches kept per agent for resumes (as the reference server), and at most this many bytes of them: 256 KiB
 * covers the last ~30 turns of 300 tokens (a resume is for a short disconnect; an older watermark gets a reset).
 * At 1 MiB, 20 streaming sessions held 20 MB of op journals (bench/stream-load.ts).
 */
export const OP_JOURNAL = 2000;
export const OP_JOURNAL_BYTES = 256 * 1024;

/**
 * The op journal keeps its newest batches as they are (a resume after a short disconnect reads them) and packs
 * older ones, PACK_BYTES of frame text at a time, into one deflated block (JSON of the batches: the frames of a
 * turn repeat their envelopes, ids and text, ~5x smaller). A resume that reaches into a block inflates it. The
 * bounds (OP_JOURNAL batches, OP_JOURNAL_BYTES of frame text) count the batches as sent, packed or not, so what
 * a resume can reach is what it was; 20 streaming sessions held 5.6 MB of op journals as strings, ~1.5 MB so
 * (bench/stream-load.ts, docs/benchmarks.md "Session 7 — stream-load memory").
 */
export const PACK_BYTES = 16 * 1024;
/** Frame text kept unpacked per agent, at most (then the oldest PACK_BYTES of it are packed). */
export const RAW_BYTES = 32 * 1024;

/** The lowest grade that carries a batch: 1 turn, 2 block, 3 delta. */
export type Rank = 1 | 2 | 3;

export interface OpBatch {
  sessionId: string;
  agentId: string;
  seq: number;
  rank: Rank;
  ops: RecOp[];
  /** From streamed deltas (never journaled). */
  volatile: boolean;
  /** The `transcript.ops` frame, serialised once (what the op journal keeps, instead of the op objects). */
  text: string;
}

/** A batch as the op journal keeps it. */
export type KeptBatch = Omit<OpBatch, 'ops'>;

/** Batches packed into one block: seqs `first`..`last`, `bytes` of frame text, deflated. */
interface PackedBlock { first: number; last: number; count: number; bytes: number; data: Buffer }

export interface AgentLog {
  seq: number;
  /** Older batches, packed, oldest first. */
  packed: PackedBlock[];
  /** The newest batches, as sent, oldest first. */
  batches: KeptBatch[];
  /** Frame text of every batch kept, packed or not. */
  bytes: number;
  /** Frame text of `batches`. */
  rawBytes: number;
  /** Batches kept, packed or not. */
  count: number;
}

export const emptyLog = (seq: number): AgentLog => ({ seq, packed: [], batches: [], bytes: 0, rawBytes: 0, count: 0 });

/** The `transcript.ops` frame of a batch (protocol/ws/server-frames.ts TranscriptOpsFrame, spec/clients.md C). */
export function opsFrame(f: { sessionId: string; agentId: string; seq: number; volatile: boolean; ops: unknown[]; ts: string }): string {
  const payload: Record<string, unknown> = { agent_id: f.agentId, seq: f.seq };
  if (f.volatile) payload.volatile = true;
  payload.ops = f.ops;
  return JSON.stringify({ type: 'transcript.ops', session_id: f.sessionId, timestamp: f.ts, payload });
}

function pack(batches: KeptBatch[]): PackedBlock {
  let bytes = 0;
  for (const b of batches) bytes += b.text.length;
  const out = deflateRawSync(JSON.stringify(batches));
  // A block of its own (zlib's result can be a view into a larger chunk it allocated).
  const data = Buffer.allocUnsafeSlow(out.length);
  out.copy(data);
  return { first: batches[0]!.seq, last: batches.at(-1)!.seq, count: batches.length, bytes, data };
}

function unpack(block: PackedBlock): KeptBatch[] {
  return JSON.parse(inflateRawSync(block.data).toString('utf8')) as KeptBatch[];
}

/** The batches after `since` when the log still reaches it (`complete`), oldest first. */
export function batchesSince(log: AgentLog, since: number): { batches: KeptBatch[]; latest: number; complete: boolean } {
  const oldest = log.packed[0]?.first ?? log.batches[0]?.seq ?? log.seq + 1;
  if (since > log.seq || since < oldest - 1) return { batches: [], latest: log.seq, complete: false };
  const out: KeptBatch[] = [];
  for (const block of log.packed) if (block.last > since) for (const b of unpack(block)) if (b.seq > since) out.push(b);
  for (const b of log.batches) if (b.seq > since) out.push(b);
  return { batches: out, latest: log.seq, complete: true };
}

/**
 * Adds a batch to an agent's op journal: drops the oldest batches past the bounds (a packed block goes whole, so
 * a resume can reach up to one block less far than the bounds allow), packs the oldest raw ones past RAW_BYTES.
 */
export function keep(log: AgentLog, b: KeptBatch): void {
  log.batches.push(b);
  log.bytes += b.text.length;
  log.rawBytes += b.text.length;
  log.count += 1;
  const over = () => log.count > OP_JOURNAL || log.bytes > OP_JOURNAL_BYTES;
  while (over() && log.packed.length) {
    const block = log.packed.shift()!;
    log.count -= block.count;
    log.bytes -= block.bytes;
  }
  let drop = 0;
  while (over() && log.batches.length - drop > 1) {
    const len = log.batches[drop++]!.text.length;
    log.bytes -= len;
    log.rawBytes -= len;
    log.count -= 1;
  }
  if (drop) log.batches.splice(0, drop);
  // The newest batch always stays unpacked (a resume right after it reads it as sent), however large it is.
  if (log.rawBytes <= RAW_BYTES || log.batches.length < 2) return;
  let n = 0;
  let bytes = 0;
  while (n < log.batches.length - 1 && bytes < PACK_BYTES) bytes += log.batches[n++]!.text.length;
  log.packed.push(pack(log.batches.splice(0, n)));
  log.rawBytes -= bytes;
}
