import * as v from 'valibot';
import { TITLE_SOURCES } from './enums.ts';

/** POST /sessions/{session_id}/title/generate body. */
export const TitleGenerateBody = v.object({
  force: v.optional(v.boolean('must be a boolean'), false),
  source: v.optional(v.picklist(TITLE_SOURCES, `must be one of ${TITLE_SOURCES.join(', ')}`), 'user_prompts'),
});

export const GeneratedTitle = v.object({ title: v.string() });
