/**
 * Key layout of one journal database (see docs/journal.md):
 *   e!<stream>!<seq:12>   event record {type, ts, payload}
 *   h!<stream>            stream head {epoch, seq, created_at}
 *   p!<name>!<key>        projection records (rebuildable)
 *   v!<name>              projection version
 *   m!<key>               database metadata (slot id, imports)
 */
export const GLOBAL_STREAM = '__global__';
export const GUI_STREAM = '__gui__';

const SEQ_WIDTH = 12;

export function padSeq(seq: number): string {
  return String(seq).padStart(SEQ_WIDTH, '0');
}

export const eventKey = (stream: string, seq: number) => `e!${stream}!${padSeq(seq)}`;
export const eventRange = (stream: string) => ({ gte: `e!${stream}!`, lt: `e!${stream}!~` });
export const headKey = (stream: string) => `h!${stream}`;
export const HEAD_RANGE = { gte: 'h!', lt: 'h!~' };
export const EVENT_RANGE = { gte: 'e!', lt: 'e!~' };
export const projectionKey = (name: string, key: string) => `p!${name}!${key}`;
export const projectionRange = (name: string) => ({ gte: `p!${name}!`, lt: `p!${name}!~` });
export const PROJECTION_RANGE = { gte: 'p!', lt: 'p!~' };
export const versionKey = (name: string) => `v!${name}`;
export const metaKey = (key: string) => `m!${key}`;

export function parseEventKey(key: string): { stream: string; seq: number } {
  const last = key.lastIndexOf('!');
  return { stream: key.slice(2, last), seq: Number(key.slice(last + 1)) };
}
