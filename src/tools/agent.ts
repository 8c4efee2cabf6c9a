import type { ToolDef } from './types.ts';

/** Filled in by issue 4 work in progress. */
export const agentTools: ToolDef[] = [];
