import * as v from 'valibot';

/** Schema pieces several event families share. */

export const AgentId = v.pipe(v.string(), v.description('`main` for the main agent (what agent_filter matches)'));

export const Usage = v.object({ input_tokens: v.number(), output_tokens: v.number(), cache_read_tokens: v.number(), cache_creation_tokens: v.number() });
export type Usage = v.InferOutput<typeof Usage>;

/** Why a model request, turn or compaction failed. */
export const Failure = v.object({ kind: v.string(), message: v.string(), status: v.optional(v.number()) });
export type Failure = v.InferOutput<typeof Failure>;
