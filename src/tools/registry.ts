import { schemaToJson } from '../../protocol/json-schema.ts';
import type { ResolvedConfig } from '../config/resolve.ts';
import type { ToolSpec } from '../providers/wire/types.ts';
import { askUserQuestionTool } from './ask-user-question.ts';
import { bashTool } from './bash.ts';
import { editTool } from './edit.ts';
import { globTool } from './glob.ts';
import { grepTool } from './grep.ts';
import { readTool } from './read.ts';
import type { ToolDef } from './types.ts';
import { writeTool } from './write.ts';
import { todoTools } from './todo.ts';
import { planTools } from './plan-mode.ts';
import { webTools } from './web.ts';
import { skillTools } from './skill.ts';
import { agentTools } from './agent.ts';
import { dynamicWorkflowTools } from './dynamic-workflow.ts';
import { goalCompleteTool } from '../goals/tool.ts';

/**
 * The built-in tools (Bash also runs background tasks, src/tasks/; Agent runs subagents, src/agents/).
 * MCP tools (`mcp__<server>__<tool>`) arrive with the MCP servers.
 */
export const BUILTIN_TOOLS: readonly ToolDef[] = [
  readTool, writeTool, editTool, globTool, grepTool, bashTool, askUserQuestionTool,
  ...todoTools, ...planTools, ...webTools, ...skillTools, ...agentTools, ...dynamicWorkflowTools, goalCompleteTool,
];

export function findTool(name: string): ToolDef | undefined {
  return BUILTIN_TOOLS.find((t) => t.name === name);
}

/**
 * Specs by config object (a reload makes a new one) and tool: converting every tool's schema to
 * JSON Schema for every model request cost about 0.3 ms. Callers must not mutate the result.
 */
const specs = new WeakMap<object, Map<ToolDef, ToolSpec>>();
const NO_CONFIG = {};

export function toolSpec(t: ToolDef, config?: ResolvedConfig): ToolSpec {
  let byTool = specs.get(config ?? NO_CONFIG);
  if (!byTool) specs.set(config ?? NO_CONFIG, (byTool = new Map()));
  let spec = byTool.get(t);
  if (!spec) {
    const { $schema: _drop, ...schema } = schemaToJson(config && t.offeredSchema ? t.offeredSchema(config) : t.schema);
    spec = { name: t.name, description: t.description, inputSchema: schema };
    byTool.set(t, spec);
  }
  return spec;
}
