/** The hook events (docs/hooks.md). */
export const HOOK_EVENTS = ['PreToolUse', 'PostToolUse', 'UserPromptSubmit', 'Stop', 'SessionStart'] as const;
export type HookEvent = (typeof HOOK_EVENTS)[number];

/** Default and largest run time of one hook command, in seconds. */
export const HOOK_DEFAULT_TIMEOUT_S = 60;
export const HOOK_MAX_TIMEOUT_S = 600;

/** One `[[hooks]]` entry (config.toml) or one entry of a plugin's `hooks.json`. */
export interface HookSpec {
  event: HookEvent;
  /** Glob on the tool name (PreToolUse / PostToolUse); absent or `*` matches every tool. Ignored by other events. */
  matcher?: string;
  /** Run by `/bin/sh -c` (cmd.exe on Windows). */
  command: string;
  /** Seconds; default 60. */
  timeout: number;
  /** `config` or `plugin:<id>`. */
  origin: string;
  /** A plugin hook runs in its plugin's folder. */
  cwd?: string;
}

/** Reads hook entries; one that does not validate is skipped with a problem. */
export function parseHooks(list: unknown, origin: string, cwd?: string): { hooks: HookSpec[]; problems: string[] } {
  const hooks: HookSpec[] = [];
  const problems: string[] = [];
  if (list === undefined) return { hooks, problems };
  if (!Array.isArray(list)) return { hooks, problems: [`${origin}: hooks must be an array`] };
  list.forEach((h, i) => {
    const e = h as Record<string, unknown>;
    const bad = (why: string) => problems.push(`${origin}: hook ${i} ignored: ${why}`);
    if (!e || typeof e !== 'object') return void bad('not a table');
    if (!HOOK_EVENTS.includes(e.event as HookEvent)) return void bad(`event must be one of ${HOOK_EVENTS.join(', ')}`);
    if (typeof e.command !== 'string' || !e.command.trim()) return void bad('command must be a non-empty string');
    if (e.matcher !== undefined && typeof e.matcher !== 'string') return void bad('matcher must be a string');
    if (e.timeout !== undefined && (typeof e.timeout !== 'number' || !(e.timeout > 0))) return void bad('timeout must be a positive number of seconds');
    hooks.push({
      event: e.event as HookEvent, command: e.command, timeout: Math.min((e.timeout as number | undefined) ?? HOOK_DEFAULT_TIMEOUT_S, HOOK_MAX_TIMEOUT_S),
      origin, ...(typeof e.matcher === 'string' && e.matcher ? { matcher: e.matcher } : {}), ...(cwd ? { cwd } : {}),
    });
  });
  return { hooks, problems };
}
