import path from 'node:path';
import { readConfigFile } from '../../config/file.ts';
import { isTable, type Doc } from '../../config/read.ts';
import type { ResolvedConfig } from '../../config/resolve.ts';
import { PRINT_BACKGROUND_MODES } from '../../../protocol/schemas/enums.ts';

export type PrintBackgroundMode = (typeof PRINT_BACKGROUND_MODES)[number];

/**
 * Part B's print-mode defaults: `bash_task_timeout_s`, `[subagent] timeout_ms` and `[dynamic_workflow] timeout_ms`
 * are 0 (none) in print mode unless config.toml or the environment sets them. Each as [table, key, variable].
 */
const ZERO_UNLESS_SET: Array<[string, string, string]> = [
  ['background', 'bash_task_timeout_s', 'SVC_CODE_BACKGROUND_BASH_TASK_TIMEOUT_S'],
  ['subagent', 'timeout_ms', 'SVC_SUBAGENT_TIMEOUT_MS'],
  ['dynamic_workflow', 'timeout_ms', 'SVC_CODE_DYNAMIC_WORKFLOW_TIMEOUT_MS'],
];

const MODE_VARIABLE = 'SVC_CODE_BACKGROUND_PRINT_BACKGROUND_MODE';

const validInt = (x: unknown) => typeof x === 'number' && Number.isInteger(x) && x >= 0;
const validIntText = (s: string | undefined) => s !== undefined && /^\d+$/.test(s.trim());

function field(doc: Doc, table: string, key: string): unknown {
  const t = doc[table];
  return isTable(t) ? t[key] : undefined;
}

/** config.toml as the user wrote it (empty when missing or malformed: the config service reports those). */
export async function rawConfig(home: string): Promise<Doc> {
  const read = await readConfigFile(path.join(home, 'config.toml'));
  return read.kind === 'ok' ? read.doc : {};
}

/**
 * The environment the config of a print run reads its overrides from: `env` plus, for each timeout neither
 * config.toml nor `env` sets, its variable at 0. (An override, so it never reaches config.toml.)
 */
export function printConfigEnv(raw: Doc, env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = { ...env };
  for (const [table, key, variable] of ZERO_UNLESS_SET) {
    if (!validInt(field(raw, table, key)) && !validIntText(env[variable])) out[variable] = '0';
  }
  return out;
}

/**
 * `[background] print_background_mode` when set (config.toml or the environment); unset, `keep_alive_on_exit`
 * decides (true = drain), else the default, steer.
 */
export function printBackgroundMode(raw: Doc, env: NodeJS.ProcessEnv, c: ResolvedConfig): PrintBackgroundMode {
  const modes: readonly string[] = PRINT_BACKGROUND_MODES;
  const set = modes.includes(String(field(raw, 'background', 'print_background_mode'))) || modes.includes(env[MODE_VARIABLE]?.trim() ?? '');
  if (set) return c.background.print_background_mode as PrintBackgroundMode;
  return c.background.keep_alive_on_exit ? 'drain' : 'steer';
}
