import { sessionSnapshot, type SnapshotDeps } from '../../sessions/snapshot.ts';
import { Codes } from '../../../protocol/codes.ts';
import { route, type RouteDef } from '../route.ts';
import { SessionSnapshot } from '../../../protocol/schemas/messages.ts';
import { SessionIdParams } from '../../../protocol/schemas/sessions.ts';

export function snapshotRoutes(deps: SnapshotDeps): RouteDef[] {
  return [
    route({
      method: 'GET', path: '/api/v1/sessions/{session_id}/snapshot', operationId: 'getSessionSnapshot',
      summary: 'Session, newest 100 messages, usage and in-flight turn as of one stream position (subscribe with as_of_seq/epoch)', tags: ['sessions'],
      params: SessionIdParams, data: SessionSnapshot, codes: [Codes.SESSION_NOT_FOUND],
      handler: ({ params }) => sessionSnapshot(deps, params.session_id),
    }),
  ];
}
