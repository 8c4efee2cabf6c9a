import { schemaToJson } from '../http/openapi.ts';
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

/**
 * The built-in tools (Bash also runs background tasks, src/tasks/; Agent runs subagents, src/agents/).
 * MCP tools (`mcp__<server>__<tool>`) arrive with the MCP servers.
 */
export const BUILTIN_TOOLS: readonly ToolDef[] = [
  readTool, writeTool, editTool, globTool, grepTool, bashTool, askUserQuestionTool,
  ...todoTools, ...planTools, ...webTools, ...skillTools, ...agentTools, ...dynamicWorkflowTools,
];

export function findTool(name: string): ToolDef | undefined {
  return BUILTIN_TOOLS.find((t) => t.name === name);
}

export function toolSpec(t: ToolDef, config?: ResolvedConfig): ToolSpec {
  const { $schema: _drop, ...schema } = schemaToJson(config && t.offeredSchema ? t.offeredSchema(config) : t.schema);
  return { name: t.name, description: t.description, inputSchema: schema };
}
