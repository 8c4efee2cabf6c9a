import * as v from 'valibot';
import { GLOBAL_STREAM, GUI_STREAM } from '../../journal/keys.ts';
import type { Durability, EventStream } from './define.ts';
import { eventDef } from './registry.ts';

/** An emitted event the registry does not describe. */
export interface EventViolation {
  type: string;
  /** The stream of a durable event; the session of a volatile one. */
  stream: string;
  durability: Durability;
  issues: string[];
  /** The start of the payload's JSON. */
  excerpt: string;
}

const EXCERPT_CHARS = 300;

function streamKind(stream: string): EventStream {
  return stream === GLOBAL_STREAM ? 'global' : stream === GUI_STREAM ? 'gui' : 'session';
}

/** Keys of `input` the schema's output dropped: fields an emitter sends that its schema does not document. */
function undocumented(input: unknown, output: unknown, path: string, out: string[]): void {
  if (Array.isArray(input) && Array.isArray(output)) {
    input.forEach((x, i) => undocumented(x, output[i], `${path}[${i}]`, out));
    return;
  }
  if (!input || typeof input !== 'object' || !output || typeof output !== 'object') return;
  for (const [k, x] of Object.entries(input)) {
    const at = path ? `${path}.${k}` : k;
    if (!(k in output)) {
      if (x !== undefined) out.push(`${at}: not in the schema`);
    } else undocumented(x, (output as Record<string, unknown>)[k], at, out);
  }
}

/** What is wrong with one emitted event (empty when it matches its registry entry). */
export function eventIssues(type: string, stream: string, durability: Durability, payload: unknown): string[] {
  const def = eventDef(type);
  if (!def) return ['no registry entry for this type'];
  const issues: string[] = [];
  if (def.durability !== durability) issues.push(`registered as ${def.durability}, emitted as ${durability}`);
  if (durability === 'durable' && def.stream !== streamKind(stream)) issues.push(`registered on the ${def.stream} stream, appended to ${stream}`);
  const r = v.safeParse(def.payload, payload);
  if (!r.success) {
    for (const i of r.issues) issues.push(`${v.getDotPath(i) ?? '(payload)'}: ${i.message}`);
  } else {
    undocumented(payload, r.output, '', issues);
  }
  return issues;
}

/**
 * Test runs (SVC_CODE_CHECK_EVENTS=1) check every durable event at append time and every volatile
 * publish against the registry, and keep what did not match; production runs build no checker.
 */
export class EventChecker {
  readonly violations: EventViolation[] = [];

  /** `onViolation`: where a daemon run by hand reports them (its log). */
  constructor(private readonly onViolation?: (v: EventViolation) => void) {}

  /** Checks one event; records and returns its violation, if any. */
  check(type: string, stream: string, durability: Durability, payload: unknown): EventViolation | undefined {
    const issues = eventIssues(type, stream, durability, payload);
    if (!issues.length) return undefined;
    const violation = { type, stream, durability, issues, excerpt: excerpt(payload) };
    this.violations.push(violation);
    this.onViolation?.(violation);
    return violation;
  }
}

export class EventCheckError extends Error {
  constructor(readonly violations: EventViolation[]) {
    super(`events do not match the registry:\n${formatViolations(violations)}`);
  }
}

export function formatViolations(violations: readonly EventViolation[]): string {
  return violations.map((x) => `- ${x.durability} ${x.type} on ${x.stream}: ${x.issues.join('; ')}\n  payload: ${x.excerpt}`).join('\n');
}

function excerpt(payload: unknown): string {
  let text: string;
  try {
    text = JSON.stringify(payload) ?? String(payload);
  } catch {
    text = String(payload);
  }
  return text.length > EXCERPT_CHARS ? `${text.slice(0, EXCERPT_CHARS)}…` : text;
}
