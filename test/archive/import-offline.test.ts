import test from 'ava';
import { ContractChecker } from '../../protocol/contract-check.ts';
import { openHomeJournal } from '../../src/app/journal-boot.ts';
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

test('the journal bootstrap honours SVC_CODE_JOURNAL_FSYNC (serve and offline import alike)', async (t) => {
  const saved = process.env.SVC_CODE_JOURNAL_FSYNC;
  t.teardown(() => {
    if (saved === undefined) delete process.env.SVC_CODE_JOURNAL_FSYNC;
    else process.env.SVC_CODE_JOURNAL_FSYNC = saved;
  });
  for (const [value, sync] of [['1', true], ['0', false]] as const) {
    process.env.SVC_CODE_JOURNAL_FSYNC = value;
    const opened = await openHomeJournal(await tempHome(), { ids: ulidIds(), clock: systemClock });
    t.is((opened.journal as unknown as { sync: boolean }).sync, sync);
    await opened.journal.close();
  }
});
