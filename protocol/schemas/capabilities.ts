import * as v from 'valibot';
import { Id } from './common.ts';

/** Part B "Capability status object": `install` while and after a background install. */
export const CapabilityInstall = v.object({
  running: v.boolean(),
  step: v.optional(v.pipe(v.string(), v.description('the step being run'))),
  percent: v.optional(v.pipe(v.number(), v.minValue(0), v.maxValue(100))),
  error: v.optional(v.string()),
  note: v.optional(v.string()),
});

export const CapabilityStep = v.object({
  id: v.string(),
  state: v.picklist(['ok', 'missing', 'failed']),
  detail: v.optional(v.string()),
  optional: v.optional(v.boolean()),
});

export const CapabilityStatus = v.object({
  id: v.string(),
  pluginId: v.optional(v.string()),
  displayName: v.string(),
  description: v.string(),
  supported: v.boolean(),
  state: v.picklist(['ready', 'partial', 'not_installed', 'unsupported']),
  version: v.optional(v.string()),
  steps: v.array(CapabilityStep),
  install: CapabilityInstall,
});
export type CapabilityStatus = v.InferOutput<typeof CapabilityStatus>;

export const CapabilityList = v.object({ capabilities: v.array(CapabilityStatus) });
export const CapabilityIdParams = v.object({ capability_id: Id });

export const CapabilityChangedPayload = v.object({
  capability_id: v.string(),
  install: CapabilityInstall,
  state: v.picklist(['ready', 'partial', 'not_installed', 'unsupported']),
});
