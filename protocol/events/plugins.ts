import { CapabilityChangedPayload } from '../schemas/capabilities.ts';
import { PluginChangedPayload } from '../schemas/plugins.ts';
import { defineEvent } from './define.ts';

/** Plugins and capabilities, on the global stream (clients.md A5). */

const pluginChanged = defineEvent({
  type: 'event.plugin.changed', stream: 'global', durability: 'durable', receivers: 'broadcast', transcript: 'none',
  summary: 'A plugin was installed, enabled, disabled or removed',
  payload: PluginChangedPayload,
});

const capabilityChanged = defineEvent({
  type: 'event.capability.changed', stream: 'global', durability: 'durable', receivers: 'broadcast', transcript: 'none',
  summary: 'A capability install started, moved to another step, finished or failed',
  payload: CapabilityChangedPayload,
});

export const PLUGIN_EVENTS = [pluginChanged, capabilityChanged] as const;
