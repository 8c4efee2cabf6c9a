import * as v from 'valibot';
import type { EventDoc } from '../ws/event-payloads.ts';
import { SkillEvents } from './activation.ts';

/** Journaled skill events of a session stream, for /asyncapi.json. */
export const SKILL_SESSION_EVENT_DOCS: EventDoc[] = [
  {
    type: SkillEvents.activated,
    summary: 'A skill was activated: by the user (POST skills/{name}:activate or POST /prompts `skills`; carries prompt_id) '
      + 'or by the model through the Skill tool (carries tool_call_id)',
    payload: v.object({
      agent_id: v.string(), skill_name: v.string(), source: v.picklist(['project', 'user', 'extra', 'plugin', 'builtin']),
      args: v.optional(v.string()), prompt_id: v.optional(v.string()), tool_call_id: v.optional(v.string()),
    }),
  },
];
