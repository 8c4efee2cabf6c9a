import { startCore, type Core } from '../../app/core.ts';
import { createLogger } from '../../lib/logger.ts';
import { readSettings } from '../../app/settings.ts';
import type { ContractChecker } from '../../../protocol/contract-check.ts';
import { parsePrintArgs, PRINT_USAGE, UsageError, type PrintArgs } from './args.ts';
import { drive, type Driven } from './drive.ts';
import { promptText, runDirectory } from './input.ts';
import { PrintOutput, type PrintResult, type Write } from './output.ts';
import { FollowUpGate } from './follow-ups.ts';
import { checkModel } from './preflight.ts';
import { findResumed, newSession } from './session.ts';
import { printBackgroundMode, printConfigEnv, rawConfig } from './settings.ts';

/** The process around a print run: its streams, environment, signals and where it was started. */
export interface PrintIO {
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  stdout: Write;
  /** One line to stderr (progress, warnings, errors). */
  stderr(line: string): void;
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** Subscribes to SIGINT / SIGTERM; returns the removal. */
  onSignal(handler: (signal: 'SIGINT' | 'SIGTERM') => void): () => void;
  /** A second Ctrl-C: leave at once. */
  exitNow(code: number): void;
  checker?: ContractChecker;
}

/** `svc-code -p` (docs/print-mode.md): exit status 0 completed, 1 failed, 2 usage error, 130 interrupted. */
export async function printCommand(home: string, argv: string[], io: PrintIO): Promise<number> {
  const started = performance.now();
  let args: PrintArgs;
  let prompt: string;
  let cwd: string;
  try {
    args = parsePrintArgs(argv);
    if (args.help) {
      await io.stdout(`${PRINT_USAGE}\n`);
      return 0;
    }
    prompt = await promptText(args.prompt, io.stdin);
    cwd = await runDirectory(args.cwd, io.cwd);
  } catch (err) {
    return failed(io, err);
  }
  const raw = await rawConfig(home);
  // The daemon's log lines (JSON) only for errors by default: the run's own warnings are one-line messages on stderr.
  // The environment read once, with print mode's timeout defaults added (src/app/settings.ts, ./settings.ts).
  const settings = readSettings(printConfigEnv(raw, io.env));
  for (const warning of settings.warnings) io.stderr(`svc-code: ${warning}`);
  const log = createLogger(settings.logLevel ?? 'error');
  // Follow-up turns of the engine (src/tasks/wakeups.ts): none until drive() opens the gate as the background mode says.
  const followUps = new FollowUpGate();
  let core: Core;
  try {
    core = await startCore({ home, log, settings, checker: io.checker, mcpRedirectUrl: () => '', admitFollowUp: followUps.admit });
  } catch (err) {
    return failed(io, err);
  }
  let driven: Driven | undefined;
  let output: PrintOutput | undefined;
  let code: number;
  try {
    // What a previous run left open is settled first (print mode has no goal driver: an active goal stays active).
    await core.settleAtStart();
    const c = core.config.current();
    // The sessions of other processes on the home show (a session they hold cannot be resumed here), and ours shows to them.
    await core.instances.reconcile();
    core.instances.start('', settings.reconcileIntervalMs);
    const resumed = findResumed(core, { ...args, cwd });
    await checkModel(core, args.model, resumed);
    const sessionId = resumed?.id ?? await newSession(core, cwd);
    output = new PrintOutput(args.outputFormat, io.stdout, core, sessionId);
    await output.backlog(resumed ? core.journal.headSeq(sessionId) : 0);
    driven = await drive(core, {
      sessionId, prompt, args, output, followUps, warn: (line) => io.stderr(`svc-code: ${line}`), onSignal: io.onSignal, exitNow: io.exitNow,
      limits: { mode: printBackgroundMode(raw, io.env, c), ceilingMs: c.background.print_wait_ceiling_s * 1000, maxTurns: args.maxTurns ?? c.background.print_max_turns },
    });
    code = driven.code;
  } catch (err) {
    code = failed(io, err);
  } finally {
    await core.stopWork();
    await core.closeStores();
  }
  if (driven && output) {
    if (driven.error) io.stderr(`svc-code: ${driven.error.message}`);
    const result: PrintResult = { ...driven.result, duration_ms: Math.round(performance.now() - started) };
    await output.finish(result);
  }
  return code;
}

/** A one-line error on stderr; 2 for a usage error, else 1. */
function failed(io: PrintIO, err: unknown): number {
  if (err instanceof UsageError) {
    io.stderr(`svc-code: ${err.message} (svc-code -p --help)`);
    return 2;
  }
  io.stderr(`svc-code: ${(err as Error).message}`);
  return 1;
}
