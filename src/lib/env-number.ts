/** How a number read from the environment must look to be used. */
export interface EnvNumberRule {
  /** The least value taken (default 1: a positive count or duration; 0 where 0 means "off" or "none"). */
  min?: number;
  /** Whole numbers only (default true). */
  integer?: boolean;
}

/**
 * The number in environment variable `name`, or `fallback` when it is unset, blank, not a number, or breaks `rule`:
 * the one reading of a numeric knob (src/app/settings.ts reads them all at start; a typo never turns into 0 or NaN
 * inside the daemon). A value set but not taken is reported to `warn`, naming the variable and the default used.
 */
export function numberFromEnv(env: NodeJS.ProcessEnv, name: string, fallback: number, rule: EnvNumberRule = {}, warn?: (message: string) => void): number {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  const n = Number(raw);
  const min = rule.min ?? 1;
  const whole = rule.integer !== false;
  if (Number.isFinite(n) && n >= min && (!whole || Number.isInteger(n))) return n;
  const bound = min === Number.MIN_VALUE ? 'above 0' : `>= ${min}`;
  warn?.(`${name}=${JSON.stringify(raw)} is not ${whole ? 'a whole number' : 'a number'} ${bound}; using the default ${fallback}`);
  return fallback;
}

/** Any number above zero (a fraction too): `numberFromEnv(env, name, d, ANY_POSITIVE)`. */
export const ANY_POSITIVE: EnvNumberRule = { min: Number.MIN_VALUE, integer: false };
