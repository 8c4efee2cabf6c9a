import * as v from 'valibot';
import { defineEvent } from './define.ts';

/** Skills on the session's stream (Core "Events" Misc). */

const activated = defineEvent({
  type: 'skill.activated', stream: 'session', durability: 'durable', receivers: 'subscribers', transcript: 'block',
  summary: 'A skill was activated: by the user (POST skills/{name}:activate or POST /prompts `skills`; carries prompt_id) '
    + 'or by the model through the Skill tool (carries tool_call_id)',
  payload: v.object({
    agent_id: v.string(), skill_name: v.string(), source: v.picklist(['project', 'user', 'extra', 'plugin', 'builtin']),
    args: v.optional(v.string()), prompt_id: v.optional(v.string()), tool_call_id: v.optional(v.string()),
  }),
});

const commandActivated = defineEvent({
  type: 'plugin_command.activated', stream: 'session', durability: 'durable', receivers: 'subscribers', transcript: 'block',
  summary: 'A plugin command (`commands/<name>.md` of an enabled plugin, listed as skill `<plugin_id>:<command_name>` of type `command`) '
    + 'was run by the user: POST skills/{name}:activate or POST /prompts `skills`; the prompt_id is the prompt carrying its text',
  payload: v.object({
    agent_id: v.string(), plugin_id: v.string(), command_name: v.string(), args: v.optional(v.string()), prompt_id: v.string(),
  }),
});

export const SKILL_EVENTS = [activated, commandActivated] as const;
