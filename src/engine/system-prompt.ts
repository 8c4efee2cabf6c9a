import { closeSync, openSync, readSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { EventType } from '../../protocol/events/registry.ts';

/** Project instructions read into the system prompt (larger files are cut, with a note). */
const AGENTS_FILE = 'AGENTS.md';
const AGENTS_MAX_CHARS = 40_000;

/** Event recording the system prompt a session's agent runs with (kept when the session resumes). */
export const SYSTEM_PROMPT_EVENT = 'system_prompt.recorded' satisfies EventType;

const TEMPLATE = `You are \${product_name}, a coding agent working in the user's project on their own machine.

Environment:
- Working directory (workspace root): \${cwd}
- Platform: \${platform}
- Date when this session started: \${date}

How you work:
- Use the tools to read, search, edit and run things instead of guessing; paths are relative to the workspace root.
- Read a file before editing it; keep changes focused on what was asked and consistent with the surrounding code.
- Some tool calls wait for the user's approval; a denied call comes back with the reason: adapt rather than retry the same call.
- Use AskUserQuestion when a choice is genuinely the user's to make.
- Use TodoWrite to keep a short plan for multi-step work, and keep it current.
- Prefer Agent for self-contained research or changes that would flood this conversation.
- Be concise: say what you did and what is left, without restating the question.`;

/** The system prompt of a new session's main agent: the template, then the project's AGENTS.md. */
export function buildSystemPrompt(identity: { name: string }, cwd: string, now: Date): string {
  const text = TEMPLATE
    .replaceAll('${product_name}', identity.name)
    .replaceAll('${cwd}', cwd)
    .replaceAll('${platform}', `${os.platform()} ${os.arch()}`)
    .replaceAll('${date}', now.toISOString().slice(0, 10));
  const agents = projectInstructions(cwd);
  return agents ? `${text}\n\nProject instructions (${AGENTS_FILE}):\n${agents}` : text;
}

/**
 * AGENTS.md, read synchronously and bounded: one stat when it is missing (the usual case), one
 * bounded read when present. An async read takes thread-pool round trips, and when many sessions
 * start at once each waits for the busy event loop between them.
 */
function projectInstructions(cwd: string): string | undefined {
  const file = path.join(cwd, AGENTS_FILE);
  let body: string;
  try {
    const st = statSync(file, { throwIfNoEntry: false });
    if (!st?.isFile()) return undefined;
    const fd = openSync(file, 'r');
    try {
      // UTF-8 takes at most 4 bytes a character: this many bytes hold more than AGENTS_MAX_CHARS characters.
      const buf = Buffer.allocUnsafe(Math.min(st.size, AGENTS_MAX_CHARS * 4 + 4));
      body = buf.toString('utf8', 0, readSync(fd, buf, 0, buf.length, 0));
    } finally {
      closeSync(fd);
    }
  } catch {
    return undefined;
  }
  body = body.trim();
  if (!body) return undefined;
  return body.length > AGENTS_MAX_CHARS ? `${body.slice(0, AGENTS_MAX_CHARS)}\n[${AGENTS_FILE} cut at ${AGENTS_MAX_CHARS} characters]` : body;
}

/** A subagent's system prompt: its parent's, with the role it plays. */
export function subagentSystemPrompt(parent: string): string {
  return `${parent}\n\nYou are running as a subagent: another agent gave you one task. You cannot ask the user questions. `
    + 'When you are done, answer with a complete, self-contained report of what you found or changed: it is all your caller will see.';
}

/** Bounds of the skills section: at most this many skills, each line and the whole section cut to these lengths. */
export const SKILLS_LISTED_MAX = 40;
const SKILL_LINE_MAX = 200;
const SKILLS_SECTION_MAX = 6_000;

/**
 * The skills the model may load with the Skill tool, one line each (name: first line of the description), bounded;
 * the rest are counted ("and N more"). Callers pass only model-visible skills. Not part of the recorded system
 * prompt: it is added to each turn's requests, so a resumed session keeps its recorded prompt and sees today's skills.
 */
export function skillsSection(skills: ReadonlyArray<{ name: string; description: string }>): string {
  if (!skills.length) return '';
  const head = '\n\nSkills you can load with the Skill tool when a task matches one (call Skill with its name):';
  let text = head;
  let listed = 0;
  for (const s of skills.slice(0, SKILLS_LISTED_MAX)) {
    const desc = s.description.split(/\r?\n/, 1)[0]!.trim();
    let line = `\n- ${s.name}${desc ? `: ${desc}` : ''}`;
    if (line.length > SKILL_LINE_MAX) line = `${line.slice(0, SKILL_LINE_MAX - 1)}…`;
    if (text.length + line.length > SKILLS_SECTION_MAX) break;
    text += line;
    listed++;
  }
  const more = skills.length - listed;
  return more > 0 ? `${text}\n- and ${more} more (call Skill with an unknown name to list them all)` : text;
}

/** A custom agent's instructions, appended to the base system prompt while it is bound (docs/agents.md). */
export function agentSection(def: { name: string; description: string; prompt?: string }): string {
  if (!def.prompt) return '';
  return `\n\nYou are acting as the agent "${def.name}"${def.description ? ` (${def.description.split(/\r?\n/, 1)[0]!.trim()})` : ''}. `
    + `Its instructions:\n${def.prompt}`;
}

/** Said to the model on every request while plan mode is on (not part of the recorded prompt). */
export const PLAN_MODE_REMINDER = '\n\n<system-reminder>Plan mode is on: only read-only tools run. Explore, then call ExitPlanMode with your plan; '
  + 'the user reviews it before any change is made.</system-reminder>';
