import test from 'ava';
import { ContractChecker } from '../../protocol/contract-check.ts';
import { openHomeJournal } from '../../src/app/journal-boot.ts';
import { readSettings } from '../../src/app/settings.ts';
import { importOffline } from '../../src/cli/import.ts';
import { systemClock } from '../../src/lib/clock.ts';
import { ulidIds } from '../../src/lib/ids.ts';
import { exportZip, recordSession } from '../helpers/archive.ts';
import { startTestServer, tempHome } from '../helpers/server.ts';

// `svc-code import` with no daemon opens the home through the bootstrap `serve` uses (src/app/journal-boot.ts).

test('offline import goes through the serve bootstrap: every appended event meets the contract checker given, and the home then serves the session', async (t) => {
  const r = await recordSession(t);
  const zip = await exportZip(r.s, r.sid);
  const home = await tempHome();
  const checker = new ContractChecker();
  const checked: string[] = [];
  const check = checker.check.bind(checker);
  checker.check = (type, stream, durability, payload) => {
    checked.push(type);
    return check(type, stream, durability, payload);
  };
  const result = await importOffline(home, zip, checker);
  t.like(result, { original_id: r.sid, id_changed: false });
  t.true(checked.includes('event.session.created'), `checked: ${[...new Set(checked)].join(', ')}`);
  t.deepEqual(checker.violations, []);
  const s = await startTestServer({ home });
  t.teardown(() => s.stop());
  t.is((await s.get(`/api/v1/sessions/${r.sid}`)).code, 0);
});

test('the journal bootstrap takes the fsync option that SVC_CODE_JOURNAL_FSYNC sets, on by default (serve and offline import alike)', async (t) => {
  t.true(readSettings({ SVC_CODE_JOURNAL_FSYNC: '1' }).journalFsync);
  t.false(readSettings({ SVC_CODE_JOURNAL_FSYNC: '0' }).journalFsync);
  t.true(readSettings({}).journalFsync);
  for (const fsync of [true, false]) {
    const opened = await openHomeJournal(await tempHome(), { ids: ulidIds(), clock: systemClock, fsync });
    t.is((opened.journal as unknown as { sync: boolean }).sync, fsync);
    await opened.journal.close();
  }
});
