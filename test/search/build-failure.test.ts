import test from 'ava';
import { serverFor } from '../helpers/server.ts';
import { SearchService } from '../../src/search/service.ts';
import { search } from './helpers.ts';

// A build that throws (the journal unreadable in its scan, a worker that cannot open) leaves the index
// `building` and says it failed: a client stops waiting for `ready` (the web UI's search box polled forever).

type Scanning = { scan(...args: unknown[]): Promise<number> };
const proto = SearchService.prototype as unknown as Scanning;
const scan = proto.scan;
test.afterEach.always(() => {
  proto.scan = scan;
});

test.serial('a failed build answers `building` with `failed: true`', async (t) => {
  proto.scan = async () => {
    proto.scan = scan;
    throw new Error('the journal scan broke');
  };
  const s = await serverFor(t, { config: '[database]\nsearch = false\n' });
  await s.search.whenReady();
  const r = await search(s, { query: 'anything' });
  t.is(r.code, 0, JSON.stringify(r));
  t.like(r.data.index_state, { state: 'building', failed: true });
  // That search started the build again (the journal reads fine now): the next answers come from a ready index.
  await s.search.whenReady();
  const again = await search(s, { query: 'anything' });
  t.like(again.data.index_state, { state: 'ready' });
  t.is(again.data.index_state.failed, undefined);
});

test.serial('a build that did not fail says nothing of failing', async (t) => {
  const s = await serverFor(t, { config: '[database]\nsearch = false\n' });
  await s.search.whenReady();
  const r = await search(s, { query: 'anything' });
  t.like(r.data.index_state, { state: 'ready' });
  t.is(r.data.index_state.failed, undefined);
});
