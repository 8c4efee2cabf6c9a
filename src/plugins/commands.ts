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

const errText = (err: unknown) => (err as Error).message;
const absent = (err: unknown) => ['ENOENT', 'ENOTDIR'].includes((err as NodeJS.ErrnoException).code ?? '');

/**
 * The commands of a plugin folder: each `commands/<name>.md` (frontmatter optional: `description`),
 * as a user-only skill named `<pluginId>:<name>` (docs/plugins.md). What cannot be read is left out and
 * named in `problems` (the plugin summary's `hasErrors`); never throws.
 */
export async function readCommands(dir: string, pluginId: string): Promise<{ commands: Skill[]; problems: string[] }> {
  const root = path.join(dir, 'commands');
  const problems: string[] = [];
  let names: string[];
  try {
    names = (await readdir(root, { withFileTypes: true })).filter((e) => e.isFile() && e.name.endsWith('.md')).map((e) => e.name).sort();
  } catch (err) {
    return { commands: [], problems: absent(err) ? [] : [`plugin ${pluginId}: commands: ${errText(err)}`] };
  }
  const commands: Skill[] = [];
  for (const file of names) {
    const at = path.join(root, file);
    let text: string;
    try {
      text = await readFile(at, 'utf8');
    } catch (err) {
      problems.push(`plugin ${pluginId}: commands/${file}: ${errText(err)}`);
      continue;
    }
    const p = parseSkillFile(text);
    const command = file.slice(0, -'.md'.length);
    commands.push({
      name: commandSkillName(pluginId, command), description: p.description ?? firstLine(p.body), path: at, source: 'plugin',
      type: COMMAND_TYPE, disable_model_invocation: true, content: p.body, command: { pluginId, name: command },
    });
  }
  return { commands, problems };
}

/** The commands of every enabled plugin, in plugin id order (what does not load shows in GET /plugins `hasErrors`). */
export async function pluginCommands(home: string): Promise<Skill[]> {
  const out: Skill[] = [];
  for (const p of enabledPlugins(home)) out.push(...(await readCommands(p.dir, p.id)).commands);
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
