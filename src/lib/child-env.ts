/**
 * The daemon's secrets that may sit in its environment: the access token and the journal URL (which can hold a
 * database password, also in its query string). No child process gets them: the agent's Bash commands and
 * background tasks, hooks, terminals, git, ripgrep, launched programs and the page converter. (MCP servers start
 * from the SDK's short list of safe variables plus their configured `env`.)
 */
export const PRIVATE_ENV: readonly string[] = ['SVC_CODE_SERVER_TOKEN', 'SVC_CODE_JOURNAL_URL'];

/** A child process's environment: `base` (the daemon's) without the private variables, plus `extra`. */
export function childEnv(extra: Record<string, string> = {}, base: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(base)) if (v !== undefined && !PRIVATE_ENV.includes(k)) env[k] = v;
  for (const [k, v] of Object.entries(extra)) if (!PRIVATE_ENV.includes(k)) env[k] = v;
  return env;
}
