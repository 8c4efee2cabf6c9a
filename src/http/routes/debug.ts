import v8 from 'node:v8';
import * as v from 'valibot';
import { isLoopbackHost, type ServeOptions } from '../../app/options.ts';
import type { EventJournal } from '../../events/journal.ts';
import type { SearchService } from '../../search/service.ts';
import type { LiveTranscripts } from '../../../projections/transcript/live/live-transcripts.ts';
import { Codes } from '../../../protocol/codes.ts';
import { notFound } from '../../../protocol/errors.ts';
import { route, type RouteDef } from '../route.ts';
import { Id, queryInt } from '../../../protocol/schemas/common.ts';

const StreamParams = v.object({ stream: Id });
const EventsQuery = v.object({ from_seq: v.optional(queryInt(1, Number.MAX_SAFE_INTEGER)), limit: v.optional(queryInt(1, 10_000)) });

/**
 * `/api/v1/debug/*`: raw journal inspection for reproducing bugs. Mounted only
 * with `--debug-endpoints` on a loopback bind; not a stable protocol.
 */
export function debugRoutes(deps: { journal: EventJournal; search: Pick<SearchService, 'memoryStats' | 'kind'>; options: Pick<ServeOptions, 'debugEndpoints' | 'host'>; liveTranscripts: Pick<LiveTranscripts, 'stats'> }): RouteDef[] {
  if (!deps.options.debugEndpoints || !isLoopbackHost(deps.options.host)) return [];
  const tags = ['debug'];
  return [
    route({
      method: 'GET', path: '/api/v1/debug/streams', operationId: 'debugListStreams', summary: 'Every journal stream with its head (unstable)', tags,
      handler: () => ({ items: [...deps.journal.allHeads()].map(([stream, head]) => ({ stream, ...head })) }),
    }),
    route({
      method: 'GET', path: '/api/v1/debug/streams/{stream}/events', operationId: 'debugReadStream', summary: 'Raw events of one stream, oldest first (unstable)', tags,
      params: StreamParams, query: EventsQuery, codes: [Codes.VALIDATION, Codes.SESSION_NOT_FOUND],
      handler: async ({ params, query }) => {
        if (!deps.journal.hasStream(params.stream)) throw notFound(Codes.SESSION_NOT_FOUND, 'stream', params.stream);
        const limit = query.limit ?? 1000;
        const items = await deps.journal.readRange(params.stream, query.from_seq ?? 1, Number.MAX_SAFE_INTEGER, limit + 1);
        return { items: items.slice(0, limit), has_more: items.length > limit };
      },
    }),
    route({
      method: 'GET', path: '/api/v1/debug/memory', operationId: 'debugMemory', summary: 'Process memory and V8 heap spaces, in bytes (unstable; for bench/)', tags,
      handler: async () => ({
        process: process.memoryUsage(),
        /** The search index: where it runs (`worker`: its heap is not in `process`'s heap figures) and that thread's heap, in MB. */
        search: { in: deps.search.kind, ...(await deps.search.memoryStats()) },
        /** The live transcript folds: sessions held, restores of trimmed turns (count, failures, ms), queue overflows. */
        live_transcripts: deps.liveTranscripts.stats(),
        /** The node flags the daemon runs with (package.json's start, the bin's shebang). */
        exec_argv: process.execArgv,
        heap: v8.getHeapStatistics(),
        heap_spaces: v8.getHeapSpaceStatistics().map((s) => ({ name: s.space_name, size: s.space_size, used: s.space_used_size })),
      }),
    }),
  ];
}
