import type { ConfigService } from '../config/service.ts';
import { PERMISSION_MODES, type PermissionModeName } from '../../protocol/schemas/enums.ts';

/** The modes a session's agent runs with: what the gate enforces, `/status` reports and `turn.started` records. */
export interface AgentSettings {
  permission_mode: PermissionModeName;
  plan_mode: boolean;
  swarm_mode: boolean;
}

/**
 * A session's effective modes from its `agent_config`: a stored value the gate can act on, else the config
 * default. One reading for every caller, so a stored value the gate ignores (a permission_mode outside the
 * picklist, from `POST /sessions` or an imported archive) is not reported as if it applied.
 */
export function agentSettings(config: Pick<ConfigService, 'defaultPermissionMode' | 'defaultPlanMode'>, agentConfig: unknown): AgentSettings {
  const cfg = (agentConfig ?? {}) as Record<string, unknown>;
  const mode = cfg.permission_mode;
  return {
    permission_mode: isPermissionMode(mode) ? mode : config.defaultPermissionMode(),
    plan_mode: typeof cfg.plan_mode === 'boolean' ? cfg.plan_mode : config.defaultPlanMode(),
    swarm_mode: cfg.dynamic_workflow_mode === true,
  };
}

function isPermissionMode(m: unknown): m is PermissionModeName {
  return (PERMISSION_MODES as readonly unknown[]).includes(m);
}
