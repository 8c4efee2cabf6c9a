import pino from 'pino';
import type { Logger } from '../lib/logger.ts';
import { LOG_REDACT_PATHS } from '../lib/logger.ts';

/** Lines kept per session, and sessions kept (least recently logged dropped first). */
const LINES_PER_SESSION = 2000;
const SESSIONS_KEPT = 500;
const SESSION_FIELDS = ['session_id', 'sessionId', 'session', 'sid'] as const;

/**
 * The daemon's recent log lines per session, for session exports. Lines are the JSON pino wrote
 * (secrets already redacted by path); a line belongs to a session when it names one in a
 * `session_id` / `sessionId` / `session` / `sid` field. Memory is bounded; nothing is written to disk.
 */
export class SessionLogTap {
  private readonly bySession = new Map<string, string[]>();

  /** pino destination: one JSON line per call. */
  write(line: string): void {
    if (!line.includes('ession') && !line.includes('"sid"')) return;
    let rec: Record<string, unknown>;
    try {
      rec = JSON.parse(line) as Record<string, unknown>;
    } catch {
      return;
    }
    const id = SESSION_FIELDS.map((f) => rec[f]).find((x): x is string => typeof x === 'string' && x.startsWith('session_'));
    if (!id) return;
    let lines = this.bySession.get(id);
    if (lines) this.bySession.delete(id);
    else lines = [];
    this.bySession.set(id, lines);
    lines.push(line.endsWith('\n') ? line.slice(0, -1) : line);
    if (lines.length > LINES_PER_SESSION) lines.splice(0, lines.length - LINES_PER_SESSION);
    if (this.bySession.size > SESSIONS_KEPT) this.bySession.delete(this.bySession.keys().next().value!);
  }

  /** The session's lines, oldest first. */
  lines(sessionId: string): string[] {
    return [...(this.bySession.get(sessionId) ?? [])];
  }
}

/**
 * A logger writing where `base` writes (at its level) and to `tap` (at info and above), so exports
 * hold the session's lines even when the console is quiet.
 */
export function tappedLogger(base: Logger, tap: SessionLogTap): Logger {
  const dest = (base as unknown as Record<symbol, pino.DestinationStream>)[pino.symbols.streamSym];
  const streams: pino.StreamEntry[] = [{ level: 'info', stream: tap }];
  const baseLevel = base.levelVal;
  if (dest && Number.isFinite(baseLevel)) streams.push({ level: base.level as pino.Level, stream: dest });
  const level = Number.isFinite(baseLevel) && baseLevel < pino.levels.values.info ? base.level : 'info';
  return pino({ level, base: undefined, redact: { paths: LOG_REDACT_PATHS, censor: '[redacted]' } }, pino.multistream(streams));
}
