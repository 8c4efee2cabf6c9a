// Planted for test/architecture/web.test.ts's import check, read as a web/src file would be (never imported): the two
// re-exports of server code must be reported, the two type-only ones must not.
export { ClientPayloads } from '../../../protocol/ws/client-frames.ts'; // planted
export * from '../../../protocol/codes.ts'; // planted
export type { AckFrame } from '../../../protocol/ws/server-frames.ts';
export type * from '../../../protocol/ws/server-frames.ts';
