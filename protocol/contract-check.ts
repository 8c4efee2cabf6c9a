import * as v from 'valibot';
import { GLOBAL_STREAM, GUI_STREAM } from '../journal/keys.ts';
import type { Durability, EventStream } from './events/define.ts';
import { eventDef } from './events/registry.ts';

/**
 * Something the daemon sent that its own contract does not describe: an emitted event its registry
 * entry does not match, a business code a route does not declare, or route data its response
 * schema does not match.
 */
export interface ContractViolation {
  kind: 'event' | 'route-code' | 'route-data';
  /** `<durability> <event type> on <stream>`, or `<METHOD> <spec path>`. */
  subject: string;
  issues: string[];
  /** The start of the payload's (or data's) JSON. */
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

/** What is wrong with route data (empty when it matches the declared `data` schema). */
export function dataIssues(schema: v.GenericSchema<any, any>, data: unknown): string[] {
  const r = v.safeParse(schema, data);
  if (!r.success) return r.issues.map((i) => `${v.getDotPath(i) ?? '(data)'}: ${i.message}`);
  const issues: string[] = [];
  undocumented(data, r.output, '', issues);
  return issues;
}

/**
 * Test runs (SVC_CODE_CHECK_EVENTS=1) check the daemon against its own contract and keep what did
 * not match: every durable event at append time and every volatile publish against the event
 * registry, every business code a route answers against the codes it declares, and every route's
 * `data` against its response schema. Production runs build no checker.
 */
export class ContractChecker {
  readonly violations: ContractViolation[] = [];

  /** `onViolation`: where a daemon run by hand reports them (its log). */
  constructor(private readonly onViolation?: (v: ContractViolation) => void) {}

  /** Checks one event; records and returns its violation, if any. */
  check(type: string, stream: string, durability: Durability, payload: unknown): ContractViolation | undefined {
    return this.record('event', `${durability} ${type} on ${stream}`, eventIssues(type, stream, durability, payload), payload);
  }

  /** A route answered `code` (not 0): it must be one it declares, or one any route may answer. */
  checkRouteCode(route: string, code: number, declared: readonly number[]): ContractViolation | undefined {
    if (code === 0 || ROUTE_CODES_ANY.has(code) || declared.includes(code)) return undefined;
    return this.record('route-code', route, [`answered ${code}, which the route does not declare (declares ${declared.join(', ') || 'none'})`], undefined);
  }

  checkRouteData(route: string, schema: v.GenericSchema<any, any>, data: unknown): ContractViolation | undefined {
    return this.record('route-data', route, dataIssues(schema, data), data);
  }

  private record(kind: ContractViolation['kind'], subject: string, issues: string[], payload: unknown): ContractViolation | undefined {
    if (!issues.length) return undefined;
    const violation = { kind, subject, issues, excerpt: excerpt(payload) };
    this.violations.push(violation);
    this.onViolation?.(violation);
    return violation;
  }
}

/** Codes any route may answer: a malformed request (40001), a fault (50001), a journal that cannot write (50003). */
const ROUTE_CODES_ANY = new Set([40001, 50001, 50003]);

export class EventCheckError extends Error {
  constructor(readonly violations: ContractViolation[]) {
    super(`events do not match the registry:\n${formatViolations(violations)}`);
  }
}

export function formatViolations(violations: readonly ContractViolation[]): string {
  return violations.map((x) => `- ${x.kind} ${x.subject}: ${x.issues.join('; ')}\n  excerpt: ${x.excerpt}`).join('\n');
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
