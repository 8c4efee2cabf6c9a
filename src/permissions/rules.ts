import path from 'node:path';
import { globMatches, wildcardMatch } from '../lib/glob.ts';
import type { PermissionRule, RuleDecision, RuleScope } from './types.ts';

/** Tools whose rules match a path (glob relative to the workspace root). */
export const PATH_TOOLS = new Set(['Read', 'Write', 'Edit', 'MultiEdit', 'NotebookEdit']);
/** Shell control characters: a wildcard Bash pattern never spans a second command. */
const SHELL_CONTROL = /[;&|`\n<>]|\$\(/;

/** `ToolName` or `ToolName(arg-pattern)`; undefined for a malformed pattern (it never matches). */
export function parsePattern(pattern: string): { tool: string; arg?: string } | undefined {
  // Trimmed first: two `\s*` around an optional group made the match quadratic in the spaces.
  const m = /^([^\s()]+)\s*(?:\((.*)\))?$/s.exec(pattern.trim());
  if (!m) return undefined;
  return m[2] === undefined ? { tool: m[1] } : { tool: m[1], arg: m[2] };
}

/**
 * The subject a rule argument matches: the command for Bash, the path for file
 * tools (made relative to the workspace root when inside it), none for others.
 */
export function subjectOf(name: string, input: unknown, root: string, given?: string): string | undefined {
  const i = (input && typeof input === 'object' ? input : {}) as Record<string, unknown>;
  if (name === 'Bash') return given ?? (typeof i.command === 'string' ? i.command : undefined);
  if (!PATH_TOOLS.has(name)) return undefined;
  const raw = given ?? [i.file_path, i.path, i.notebook_path].find((x): x is string => typeof x === 'string');
  if (raw === undefined) return undefined;
  const abs = path.resolve(root, raw);
  const rel = path.relative(root, abs);
  return rel.startsWith('..') || path.isAbsolute(rel) ? abs : rel.split(path.sep).join('/') || '.';
}

function toolMatches(ruleTool: string, name: string): boolean {
  if (ruleTool === name) return true;
  // Globs only make sense for MCP tool families (`mcp__server__*`).
  return ruleTool.startsWith('mcp__') && ruleTool.includes('*') && globMatches(ruleTool, name);
}

/** Bash: `*` matches anything; a trailing `:*` is a prefix form (`npm run:*`); otherwise exact. */
export function commandMatches(pattern: string, command: string): boolean {
  const cmd = command.trim().replace(/\s+/g, ' ');
  let p = pattern.trim().replace(/\s+/g, ' ');
  if (p.endsWith(':*')) p = `${p.slice(0, -2)}*`;
  if (!p.includes('*')) return cmd === p;
  if (SHELL_CONTROL.test(cmd) && !SHELL_CONTROL.test(p)) return false;
  // Linear in both (a `.*` regular expression backtracks exponentially on `*a*a*a*b`).
  // `npm run *` also matches the bare `npm run`.
  return wildcardMatch(p, cmd) || (p.endsWith(' *') && cmd === p.slice(0, -2));
}

function pathMatches(pattern: string, subject: string): boolean {
  return globMatches(pattern, subject);
}

/** Whether one rule applies to the call. */
export function ruleMatches(rule: PermissionRule, name: string, subject: string | undefined): boolean {
  const p = parsePattern(rule.pattern);
  if (!p || !toolMatches(p.tool, name)) return false;
  if (p.arg === undefined || (name !== 'Bash' && !PATH_TOOLS.has(name))) return true; // name-only tools ignore the argument
  if (subject === undefined) return false;
  return name === 'Bash' ? commandMatches(p.arg, subject) : pathMatches(p.arg, subject);
}

/** First matching rule, in order (first match wins). */
export function firstMatch(rules: PermissionRule[], name: string, subject: string | undefined): PermissionRule | undefined {
  return rules.find((r) => ruleMatches(r, name, subject));
}

const DECISIONS: RuleDecision[] = ['allow', 'deny', 'ask'];

/** Part B rule scopes, narrowest first: a matching rule of an earlier scope wins over any rule of a later one. */
export const RULE_SCOPES: readonly RuleScope[] = ['turn-override', 'session-runtime', 'project', 'user'];

/**
 * The well-formed `[[permission.rules]]` of a file (others are skipped), each with its scope (default `user`;
 * an unknown scope skips the rule). `forced` is the scope every rule of the file has: the project-local
 * file's rules are `project` rules whatever they say.
 */
export function configRules(raw: unknown[], forced?: RuleScope): PermissionRule[] {
  return raw.flatMap((r) => {
    const o = r as Record<string, unknown>;
    if (typeof o?.pattern !== 'string' || !DECISIONS.includes(o.decision as RuleDecision)) return [];
    const scope = forced ?? (o.scope === undefined ? 'user' : (o.scope as RuleScope));
    if (!RULE_SCOPES.includes(scope)) return [];
    return [{ pattern: o.pattern, decision: o.decision as RuleDecision, scope, ...(typeof o.reason === 'string' ? { reason: o.reason } : {}) }];
  });
}

/** The rules in the order they are matched: by scope, narrowest first; in file order within a scope. */
export function byScope(rules: PermissionRule[]): PermissionRule[] {
  const tier = (r: PermissionRule) => RULE_SCOPES.indexOf(r.scope ?? 'user');
  return rules.map((r, i) => [r, i] as const).sort(([a, i], [b, j]) => tier(a) - tier(b) || i - j).map(([r]) => r);
}
