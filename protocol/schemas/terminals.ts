import path from 'node:path';
import * as v from 'valibot';
import { Id, PathOrEmpty, PathString } from './common.ts';

/** Largest accepted `cols` / `rows` (a winsize field is 16 bits; nothing real comes near this). */
export const MAX_TERMINAL_DIMENSION = 4096;

/** A terminal width or height in character cells. */
export const TerminalDimension = v.pipe(
  v.number(),
  v.integer('must be an integer'),
  v.minValue(1, 'must be >= 1'),
  v.maxValue(MAX_TERMINAL_DIMENSION, `must be <= ${MAX_TERMINAL_DIMENSION}`),
);

export const TerminalStatus = v.picklist(['running', 'exited']);
export type TerminalStatus = v.InferOutput<typeof TerminalStatus>;

/** Part B "Terminal object". */
export const TerminalObject = v.pipe(
  v.object({
    id: v.pipe(v.string(), v.description('`term_<ULID>`')),
    session_id: v.string(),
    cwd: v.pipe(v.string(), v.description('working directory relative to the session workspace root (`.` = the root)')),
    shell: v.pipe(v.string(), v.description('absolute path of the shell executable')),
    cols: v.number(),
    rows: v.number(),
    status: TerminalStatus,
    created_at: v.string(),
    exited_at: v.optional(v.string()),
    exit_code: v.optional(v.pipe(v.nullable(v.number()), v.description('null when the process reported none (ended by a signal)'))),
  }),
  v.title('Terminal'),
  v.description('A PTY running a shell in the session workspace. Live state of this daemon: not kept across restarts. Scrollback is not part of the object.'),
);
export type TerminalObject = v.InferOutput<typeof TerminalObject>;

export const TerminalListData = v.pipe(v.object({ items: v.array(TerminalObject) }), v.title('TerminalList'));

export const TerminalParams = v.object({ session_id: Id, terminal_id: Id });

const RelativeCwd = v.pipe(
  PathOrEmpty,
  v.check((s) => !path.isAbsolute(s), 'must be relative to the session workspace root'),
  v.description('relative to the session workspace root; absolute paths are refused (40001), paths leading outside are 41304'),
);

export const TerminalCreateBody = v.pipe(
  v.object({
    runtime_id: v.optional(v.pipe(Id, v.description('default `local` (the only runtime)'))),
    cwd: v.optional(RelativeCwd),
    shell: v.optional(v.pipe(PathString, v.description('absolute path or a command name looked up in PATH; default $SHELL, else /bin/bash, else /bin/sh'))),
    cols: v.optional(TerminalDimension),
    rows: v.optional(TerminalDimension),
  }),
  v.title('TerminalCreateBody'),
);
export type TerminalCreateBody = v.InferOutput<typeof TerminalCreateBody>;

export const TerminalClosedData = v.object({ closed: v.literal(true) });
