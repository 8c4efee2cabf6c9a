/** How a number read from the environment must look to be used. */
export interface EnvNumberRule {
  /** The least value taken (default 1: a positive count or duration; 0 where 0 means "off" or "none"). */
  min?: number;
  /** Whole numbers only (default true). */
  integer?: boolean;
}

/**
 * The number in environment variable `name`, or `fallback` when it is unset, blank, not a number, or breaks `rule`:
 * the one reading of a numeric knob (tests and benchmarks tune the daemon through them; a typo never turns into 0
 * or NaN inside the daemon).
 */
export function numberFromEnv(env: NodeJS.ProcessEnv, name: string, fallback: number, rule: EnvNumberRule = {}): number {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  const n = Number(raw);
  const ok = Number.isFinite(n) && n >= (rule.min ?? 1) && (rule.integer === false || Number.isInteger(n));
  return ok ? n : fallback;
}

/** Any number above zero (a fraction too): `numberFromEnv(env, name, d, ANY_POSITIVE)`. */
export const ANY_POSITIVE: EnvNumberRule = { min: Number.MIN_VALUE, integer: false };
