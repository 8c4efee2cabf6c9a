import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { parseSkillFile } from '../skills/parse.ts';
import type { Skill } from '../skills/types.ts';
import { enabledPlugins } from './layout.ts';

/** The skill `type` a plugin command is listed with (GET .../skills). */
export const COMMAND_TYPE = 'command';
/** The placeholder a command body receives the activation's `args` in. */
export const ARGUMENTS = '$ARGUMENTS';
/** Longest description taken from a command's first line. */
const DESCRIPTION_MAX = 240;

/** A plugin command as the skill catalog lists it: `<pluginId>:<command>`. */
export const commandSkillName = (pluginId: string, command: string) => `${pluginId}:${command}`;

/**
 * The commands of a plugin folder: each `commands/<name>.md` (frontmatter optional: `description`),
 * as a user-only skill named `<pluginId>:<name>` (docs/plugins.md). Unreadable files are skipped.
 */
export async function readCommands(dir: string, pluginId: string): Promise<Skill[]> {
  const root = path.join(dir, 'commands');
  let names: string[];
  try {
    names = (await readdir(root, { withFileTypes: true })).filter((e) => e.isFile() && e.name.endsWith('.md')).map((e) => e.name).sort();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT' || (err as NodeJS.ErrnoException).code === 'ENOTDIR') return [];
    throw err;
  }
  const out: Skill[] = [];
  for (const file of names) {
    const at = path.join(root, file);
    const text = await readFile(at, 'utf8').catch(() => undefined);
    if (text === undefined) continue;
    const p = parseSkillFile(text);
    const command = file.slice(0, -'.md'.length);
    out.push({
      name: commandSkillName(pluginId, command), description: p.description ?? firstLine(p.body), path: at, source: 'plugin',
      type: COMMAND_TYPE, disable_model_invocation: true, content: p.body, command: { pluginId, name: command },
    });
  }
  return out;
}

/** The commands of every enabled plugin, in plugin id order. */
export async function pluginCommands(home: string): Promise<Skill[]> {
  const out: Skill[] = [];
  for (const p of enabledPlugins(home)) out.push(...(await readCommands(p.dir, p.id)));
  return out;
}

/** A command's text for the model: `$ARGUMENTS` replaced by the args; without the placeholder, the args follow the body. */
export function expandArguments(body: string, args = ''): string {
  const out = body.replaceAll(ARGUMENTS, args);
  return !body.includes(ARGUMENTS) && args ? `${out}\n\nARGUMENTS: ${args}` : out;
}

function firstLine(body: string): string {
  const line = body.split(/\r?\n/).map((l) => l.trim()).find(Boolean) ?? '';
  return line.length > DESCRIPTION_MAX ? `${line.slice(0, DESCRIPTION_MAX - 1)}…` : line;
}
