import { createReadStream, fstatSync } from 'node:fs';
import { ContractChecker } from '../../../protocol/contract-check.ts';
import { readSettings } from '../../app/settings.ts';
import { printCommand, type PrintIO } from './run.ts';

/**
 * `svc-code -p` / `svc-code print` with this process's streams, environment and signals (the edge: the print run
 * itself reads none of them directly). A broken stdout (the reader went away) ends the output, not the run.
 */
export function printFromProcess(home: string, argv: string[]): Promise<number> {
  let broken = false;
  process.stdout.on('error', () => (broken = true));
  const io: PrintIO = {
    stdin: stdinStream(),
    stdout: (text) => new Promise((resolve) => {
      if (broken) return resolve();
      process.stdout.write(text, () => resolve());
    }),
    stderr: (line) => void process.stderr.write(`${line}\n`),
    env: process.env,
    cwd: process.cwd(),
    onSignal: (handler) => {
      const int = () => handler('SIGINT');
      const term = () => handler('SIGTERM');
      process.on('SIGINT', int);
      process.on('SIGTERM', term);
      return () => {
        process.off('SIGINT', int);
        process.off('SIGTERM', term);
      };
    },
    exitNow: (code) => process.exit(code),
    // Test runs of the CLI (SVC_CODE_CHECK_EVENTS=1) check events against the registry, as `serve` does.
    ...(readSettings(process.env).checkEvents
      ? { checker: new ContractChecker((violation) => process.stderr.write(`svc-code: event does not match its registry entry: ${JSON.stringify(violation)}\n`)) }
      : {}),
  };
  return printCommand(home, argv, io);
}

/**
 * Standard input as a stream. Node hands a directory (`svc-code -p < dir`) to process.stdin as an empty stream,
 * so that case reads the descriptor itself: the read fails with EISDIR and the run says so.
 */
function stdinStream(): NodeJS.ReadableStream & { isTTY?: boolean } {
  let dir = false;
  try {
    dir = fstatSync(0).isDirectory();
  } catch {
    // No descriptor 0 (closed): process.stdin reports that itself.
  }
  return dir ? createReadStream('', { fd: 0, autoClose: false }) : process.stdin;
}
