import type { SessionRecord } from '../../projections/session-index/session-index.ts';
import type { WorkspaceRecord } from '../../projections/workspaces/workspace-registry.ts';
import { Codes } from '../../protocol/codes.ts';
import { ApiError } from '../../protocol/errors.ts';
import type { ConfigService } from '../config/service.ts';
import { additionalDirs, type WorkspaceDirsDeps } from '../workspaces/add-dir.ts';
import { pluginCommands } from '../plugins/commands.ts';
import { skillRoots } from './roots.ts';
import { scanRoot } from './scan.ts';
import { isUserActivatable, type Skill } from './types.ts';

/** Where skills are found: the user's (under `home`), the configured dirs, the workspace's roots. */
export type SkillDeps = WorkspaceDirsDeps & { home: string; config: ConfigService };

/**
 * The merged skills of a workspace: the first root (highest precedence) holding a name wins; enabled plugins'
 * commands (`<plugin>:<command>`) join last; sorted by name.
 */
export async function workspaceSkills(deps: SkillDeps, ws: WorkspaceRecord): Promise<Skill[]> {
  const projectDirs = [ws.root, ...(await additionalDirs(deps, ws.id)).filter((d) => d !== ws.root)];
  const roots = skillRoots({ home: deps.home, config: deps.config.current(), projectDirs });
  const byName = new Map<string, Skill>();
  for (const root of roots) {
    for (const s of await scanRoot(root.dir, root.source)) if (!byName.has(s.name)) byName.set(s.name, s);
  }
  for (const c of await pluginCommands(deps.home)) if (!byName.has(c.name)) byName.set(c.name, c);
  return [...byName.values()].sort((a, b) => a.name.localeCompare(b.name));
}

/** The skills of a session: its workspace's merge (the session's precedence is its workspace's). */
export async function sessionSkills(deps: SkillDeps, session: SessionRecord): Promise<Skill[]> {
  const ws = deps.workspaces.get(session.workspace_id);
  return ws ? workspaceSkills(deps, ws) : [];
}

/** A skill the user may activate: 40415 when unknown, 40912 when model-only. */
export function userSkill(skills: Skill[], name: string): Skill {
  const s = skills.find((k) => k.name === name);
  if (!s) throw new ApiError(Codes.SKILL_NOT_FOUND, `skill not found: ${name}`, { details: { skill_name: name } });
  if (!isUserActivatable(s)) {
    throw new ApiError(Codes.SKILL_NOT_USER_ACTIVATABLE, `skill ${name} cannot be activated by the user (type ${s.type})`, { details: { skill_name: name, type: s.type } });
  }
  return s;
}
