import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import pino from 'pino';
import { readSettings } from '../app/settings.ts';
import { replaySession, type ReplayReport, type ToolsMode } from '../replay/run.ts';

const USAGE = 'usage: svc-code replay <export.zip> [--tools record|live] [--workspace DIR] [--json] [--keep] [--stall-ms N]';

/**
 * `svc-code replay <zip>`: re-executes an exported session's turns in a temp home, the model answering from
 * the record (docs/replay.md). Exit 0 when the new journal matches the recorded one, 1 on a divergence (or a
 * replay that stopped), 2 on bad arguments or an unreadable archive.
 */
export async function replayCommand(_home: string, argv: string[]): Promise<number> {
  let values: { tools?: string; workspace?: string; json?: boolean; keep?: boolean; 'stall-ms'?: string };
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({
      args: argv, allowPositionals: true, strict: true,
      options: { tools: { type: 'string' }, workspace: { type: 'string' }, json: { type: 'boolean' }, keep: { type: 'boolean' }, 'stall-ms': { type: 'string' } },
    }));
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n${USAGE}\n`);
    return 2;
  }
  const tools = (values.tools ?? 'record') as ToolsMode;
  const stallMs = values['stall-ms'] === undefined ? undefined : Number(values['stall-ms']);
  if (positionals.length !== 1 || !['record', 'live'].includes(tools) || (stallMs !== undefined && !(Number.isInteger(stallMs) && stallMs > 0))) {
    process.stderr.write(`${USAGE}\n`);
    return 2;
  }
  let zip: Uint8Array;
  try {
    zip = new Uint8Array(await readFile(positionals[0]!));
  } catch (err) {
    process.stderr.write(`cannot read ${positionals[0]}: ${(err as Error).message}\n`);
    return 2;
  }
  let report: ReplayReport;
  try {
    report = await replaySession({ zip, tools, workspace: values.workspace, keep: values.keep, stallMs, log: pino({ level: 'warn' }, pino.destination(2)), settings: readSettings(process.env) });
  } catch (err) {
    const details = (err as { details?: unknown }).details;
    process.stderr.write(`replay refused: ${(err as Error).message}${details ? ` ${JSON.stringify(details)}` : ''}\n`);
    return 2;
  }
  process.stdout.write(values.json ? `${JSON.stringify(report)}\n` : humanReport(report));
  return report.divergence || report.stopped ? 1 : 0;
}

function humanReport(r: ReplayReport): string {
  const lines = [
    `replayed ${r.session_id} (tools: ${r.tools}): ${r.turns.replayed} of ${r.turns.recorded} turns, ${r.events.replayed} events `
      + `(${r.events.recorded} recorded, ${r.events.compared} compared), ${r.model_answers.served} of ${r.model_answers.recorded} model answers`
      + (r.tools === 'record' ? `, ${r.tool_answers_from_record} tool results from the record` : ''),
    `workspace: ${r.workspace.source ? `copy of ${r.workspace.source}` : 'empty'} at ${r.workspace.scratch}${r.home ? ` (kept, home ${r.home})` : ''}`,
  ];
  if (r.stopped) lines.push(`stopped: ${r.stopped}`);
  const d = r.divergence;
  if (!d) lines.push('no divergence');
  else {
    lines.push(`first divergence at compared event ${d.index}: ${d.expected?.type ?? '(none)'} (recorded seq ${d.expected?.seq ?? '-'}) vs ${d.got?.type ?? '(none)'} (replayed seq ${d.got?.seq ?? '-'}), ${d.field}`);
    lines.push(`  expected: ${JSON.stringify(d.expected?.payload ?? null)}`);
    lines.push(`  got:      ${JSON.stringify(d.got?.payload ?? null)}`);
  }
  return `${lines.join('\n')}\n`;
}
