import { copyFile } from 'node:fs/promises';
import path from 'node:path';
import test from 'ava';
import { newSession, serverFor, startTestServer } from '../helpers/server.ts';
import { SearchService } from '../../src/search/service.ts';
import { ready, say, search } from './helpers.ts';

// Events committed while the index build writes its snapshot (the last step before `ready`) are indexed
// like every other: held while the build runs, applied before it says `ready`, whichever backend and start.

type Saving = { save(): Promise<boolean> };
const proto = SearchService.prototype as unknown as Saving;
const save = proto.save;

/**
 * The next snapshot write waits (once `entered`) until `release` is called (this file's servers only); `written`
 * resolves once that write is done.
 */
function holdNextSave(): { entered: Promise<void>; release: () => void; written: Promise<void> } {
  let release!: () => void;
  let enter!: () => void;
  let wrote!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const entered = new Promise<void>((r) => (enter = r));
  const written = new Promise<void>((r) => (wrote = r));
  proto.save = async function (this: Saving) {
    proto.save = save;
    enter();
    await gate;
    try {
      return await save.call(this);
    } finally {
      wrote();
    }
  };
  return { entered, release, written };
}
test.afterEach.always(() => {
  proto.save = save;
});

const hits = async (s: Parameters<typeof search>[0], query: string) => (await search(s, { query })).data.items.length;

test.serial('in the server process ([database] search = false): a message committed during the first build\'s save is found', async (t) => {
  const save = holdNextSave();
  const s = await serverFor(t, { config: '[database]\nsearch = false\n' });
  const sid = await newSession(s);
  await save.entered;
  await say(s, sid, 'm1', 'user', 'where is the quokka configuration', 1);
  save.release();
  await ready(s);
  t.is(await hits(s, 'quokka'), 1);
});

test.serial('in the worker: a message committed during the first build\'s save (then the worker is replaced) is found', async (t) => {
  const save = holdNextSave();
  const s = await serverFor(t);
  const sid = await newSession(s);
  await save.entered;
  await say(s, sid, 'm1', 'user', 'where is the quokka configuration', 1);
  save.release();
  await ready(s);
  t.is(await hits(s, 'quokka'), 1);
});

test.serial('a start from a snapshot behind the journal: a message committed during its save is found', async (t) => {
  const s = await serverFor(t);
  const sid = await newSession(s);
  await say(s, sid, 'm1', 'user', 'the wombat came first', 1);
  await ready(s);
  await s.server.close();
  // A snapshot written now is behind the journal once m2 lands: the next start catches up, then saves.
  const again = await startTestServer({ home: s.home });
  await ready(again);
  const dir = again.search.indexDir!;
  await copyFile(path.join(dir, 'index.bin'), path.join(dir, '..', 'old-index.bin'));
  await say(again, sid, 'm2', 'assistant', 'then the okapi', 2);
  await again.server.close();
  await copyFile(path.join(dir, '..', 'old-index.bin'), path.join(dir, 'index.bin'));

  const save = holdNextSave();
  const third = await startTestServer({ home: s.home });
  t.teardown(() => third.stop());
  await save.entered;
  await say(third, sid, 'm3', 'user', 'where is the quokka configuration', 3);
  save.release();
  await ready(third);
  t.like(third.search.lastStart, { from: 'snapshot' });
  t.is(await hits(third, 'okapi'), 1);
  t.is(await hits(third, 'quokka'), 1);
});

test.serial('a build whose worker is replaced during its save neither says ready nor takes the events the new build waits for', async (t) => {
  const first = holdNextSave();
  const s = await serverFor(t);
  const sid = await newSession(s);
  await first.entered;
  // The worker dies while the first build writes its snapshot: an in-process build starts; it is held at its own save.
  const second = holdNextSave();
  await s.search.crashWorker();
  await second.entered;
  t.is(s.search.kind, 'in-process');
  await say(s, sid, 'm1', 'user', 'where is the quokka configuration', 1);

  // The first build goes on past its save: its backend is not the service's any more.
  first.release();
  await first.written;
  await new Promise((r) => setImmediate(r));
  t.is((await search(s, { query: 'quokka' })).data.index_state.state, 'building', 'the replaced build does not mark ready');

  second.release();
  await ready(s, { degraded: true });
  t.is(await hits(s, 'quokka'), 1, 'the message that waited for the new build is in its index');
});
