import test from 'ava';
import { CommitWaits } from '../../journal/commit-waits.ts';
import { Journal } from '../../journal/journal.ts';
import { BACKENDS, openJournal } from '../helpers/journal.ts';

const events = (stream: string, n: number) => Array.from({ length: n }, (_, i) => ({ stream, type: 'test.event', payload: { i } }));
const storedSeq = async (j: Journal, stream: string) => (await j.store.storedHead(stream))?.seq ?? 0;

for (const backend of BACKENDS) {
  test(`[${backend}] through(seq) resolves once the batch holding seq is on disk (the head moves when the append is accepted)`, async (t) => {
    const j = await openJournal(t, { backend });
    const waits = new CommitWaits(j, 60_000);
    j.on('committed', waits.onCommitted);
    await j.append(events('s', 2));
    await waits.through('s', 2);
    t.is(await storedSeq(j, 's'), 2, 'already on disk: no wait');

    const pending = j.append(events('s', 3));
    const target = j.headSeq('s');
    t.is(target, 5);
    await waits.through('s', target);
    t.is(await storedSeq(j, 's'), 5);
    await pending;
  });

  test(`[${backend}] without the committed subscriber a wait ends at its timeout (the subscriber is what wakes it)`, async (t) => {
    const j = await openJournal(t, { backend });
    const waits = new CommitWaits(j, 20);
    await waits.through('never', 1);
    t.is(await storedSeq(j, 'never'), 0);
  });
}
