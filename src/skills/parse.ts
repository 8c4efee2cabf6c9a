import { parse } from 'yaml';

export interface ParsedSkillFile {
  name?: string;
  description?: string;
  type?: string;
  disable_model_invocation?: boolean;
  body: string;
}

const FRONTMATTER = /^\uFEFF?---[ \t]*\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/;

const str = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() ? v.trim() : undefined);

function bool(v: unknown): boolean | undefined {
  if (typeof v === 'boolean') return v;
  if (v === 'true' || v === 'false') return v === 'true';
  return undefined;
}

/**
 * SKILL.md: optional YAML frontmatter (`name`, `description`, `type`,
 * `disable-model-invocation` or `disable_model_invocation`), then the body.
 * Malformed YAML counts as no frontmatter: the skill still loads under its
 * directory name rather than vanishing silently.
 */
export function parseSkillFile(text: string): ParsedSkillFile {
  const m = FRONTMATTER.exec(text);
  if (!m) return { body: text.trim() };
  let fm: Record<string, unknown> = {};
  try {
    const doc: unknown = parse(m[1]!);
    if (doc && typeof doc === 'object' && !Array.isArray(doc)) fm = doc as Record<string, unknown>;
  } catch {
    /* malformed frontmatter: fall back to defaults */
  }
  const out: ParsedSkillFile = { body: text.slice(m[0].length).trim() };
  const name = str(fm.name);
  const description = str(fm.description);
  const type = str(fm.type);
  const dmi = bool(fm['disable-model-invocation'] ?? fm.disable_model_invocation);
  if (name) out.name = name;
  if (description) out.description = description;
  if (type) out.type = type;
  if (dmi !== undefined) out.disable_model_invocation = dmi;
  return out;
}
