import * as v from 'valibot';
import { PathString, queryInt } from './common.ts';

/** The per-turn file history (spec/clients.md D1; docs/file-history.md). */

/** A main turn by ordinal: 0 for the session's first (the transcript's `t0`). */
const TurnOrdinal = v.pipe(queryInt(0, 1_000_000_000), v.description('the main turn\'s ordinal: 0 for the first (transcript turn `t0`)'));

export const FileChangesQuery = v.object({ turn_id: TurnOrdinal });

export const FileContentQuery = v.object({
  turn_id: TurnOrdinal,
  path: v.pipe(PathString, v.description('as listed by /file-history/changes')),
  phase: v.picklist(['start', 'end'], 'must be start or end'),
});

export const FileChangesData = v.object({
  changes: v.array(v.object({
    path: v.string(),
    status: v.picklist(['added', 'modified', 'deleted']),
    additions: v.pipe(v.number(), v.description('lines added between the turn\'s start and end')),
    deletions: v.pipe(v.number(), v.description('lines removed between the turn\'s start and end')),
    oversize: v.optional(v.pipe(v.literal(true), v.description('a content was too large to keep: no line counts, no content'))),
  })),
  recorded: v.pipe(v.boolean(), v.description('false for a turn that does not exist (yet)')),
});

export const FileContentData = v.object({
  content: v.pipe(
    v.nullable(v.object({
      version: v.pipe(v.number(), v.description('journal seq of the change the content comes from')),
      content: v.optional(v.string()),
      oversize: v.optional(v.literal(true)),
    })),
    v.description('null when the file did not exist at that phase, or the turn did not change it'),
  ),
});
