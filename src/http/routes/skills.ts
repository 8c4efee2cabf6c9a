import { acceptPrompt } from '../../engine/prompt-intake.ts';
import { findSession } from '../../sessions/lookup.ts';
import { sessionSkills, workspaceSkills } from '../../skills/catalog.ts';
import { toDescriptor } from '../../skills/types.ts';
import { findWorkspace } from '../../workspaces/service.ts';
import { Codes } from '../../../protocol/codes.ts';
import { route, type RouteDef } from '../route.ts';
import type { PromptInput } from '../../../protocol/schemas/prompts.ts';
import { SessionIdParams } from '../../../protocol/schemas/sessions.ts';
import { ActivateSkillBody, ActivateSkillResult, SkillList, SkillTailParams } from '../../../protocol/schemas/skills.ts';
import { WorkspaceIdParams } from '../../../protocol/schemas/workspaces.ts';
import type { IntakeDeps } from '../../engine/prompt-intake.ts';
import type { EngineRegistry } from '../../engine/runtime-registry.ts';

const tags = ['skills'];

export type SkillRouteDeps = IntakeDeps & { engine: Pick<EngineRegistry, 'resume' | 'agentRuntime'> };

/** Part B "Skills, tools and MCP (v1)": skill listings and user activation (docs/skills.md). */
export function skillRoutes(deps: SkillRouteDeps): RouteDef[] {
  return [
    route({
      method: 'GET', path: '/api/v1/sessions/{session_id}/skills', operationId: 'listSessionSkills', tags,
      summary: 'Skills of the session\'s workspace merged from builtin, plugin, extra, user and project sources (project > user > extra > plugin > builtin), '
        + 'then enabled plugins\' commands as `<plugin>:<command>` of type `command`; resumes a cold session',
      params: SessionIdParams, data: SkillList, codes: [Codes.VALIDATION, Codes.SESSION_NOT_FOUND],
      handler: async ({ params }) => {
        const s = findSession(deps, params.session_id);
        await deps.engine.resume(s);
        return { skills: (await sessionSkills(deps, s)).map(toDescriptor) };
      },
    }),
    route({
      method: 'GET', path: '/api/v1/workspaces/{workspace_id}/skills', operationId: 'listWorkspaceSkills', tags,
      summary: 'Same merge for a workspace root, without creating a session',
      params: WorkspaceIdParams, data: SkillList, codes: [Codes.WORKSPACE_NOT_FOUND],
      handler: async ({ params }) => ({ skills: (await workspaceSkills(deps, findWorkspace(deps, params.workspace_id))).map(toDescriptor) }),
    }),
    route({
      method: 'POST', path: '/api/v1/sessions/{session_id}/skills/{skill_name}:activate', operationId: 'activateSkill', tags,
      summary: 'Queue a prompt on the main agent whose user message is the skill content plus args, then the attachments; journals skill.activated '
        + '(a plugin command `<plugin>:<command>`: its text with $ARGUMENTS replaced by args; journals plugin_command.activated)',
      params: SkillTailParams, body: ActivateSkillBody, data: ActivateSkillResult,
      codes: [
        Codes.VALIDATION, Codes.NO_PROVIDER, Codes.PROVIDER_NO_CREDENTIAL, Codes.PROVIDER_CREDENTIAL_REJECTED, Codes.MODEL_NOT_RESOLVED,
        Codes.SESSION_NOT_FOUND, Codes.FILE_NOT_FOUND, Codes.SKILL_NOT_FOUND, Codes.SKILL_NOT_USER_ACTIVATABLE,
      ],
      handler: async ({ params, body }) => {
        // The prompt path does media checks, queueing and 40110-40113; the skill text is its user message.
        const prompt = { content: body.attachments ?? [], skills: [{ name: params.skill_name, ...(body.args ? { args: body.args } : {}) }] };
        await acceptPrompt(deps, params.session_id, prompt as PromptInput, 'skill');
        return { activated: true as const, skill_name: params.skill_name };
      },
    }),
  ];
}
