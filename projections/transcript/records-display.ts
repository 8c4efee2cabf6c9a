// A tool frame's `display` block (spec/clients.md B3, C2 "tool call started"): what the call does, derived from its
// name and parsed input (the journaled `tool.call.started`), for the tools whose block kind the clients know.
// Other tools get none: the client renders `input`.

type Input = Record<string, unknown>;

const str = (x: unknown): string | undefined => (typeof x === 'string' ? x : undefined);

/** The display block of a call, or undefined. */
export function toolDisplay(name: string, input: unknown): Record<string, unknown> | undefined {
  if (!input || typeof input !== 'object' || Array.isArray(input)) return undefined;
  const i = input as Input;
  const path = str(i.file_path) ?? str(i.path);
  switch (name) {
    case 'Bash':
      return str(i.command) !== undefined ? { kind: 'command', command: i.command, ...(str(i.description) ? { description: i.description } : {}) } : undefined;
    case 'Read':
      return path ? { kind: 'file_io', operation: 'read', path } : undefined;
    case 'Write':
      return path ? { kind: 'file_io', operation: 'write', path } : undefined;
    case 'Edit':
      return path ? { kind: 'diff', path, oldText: str(i.old_string) ?? '', newText: str(i.new_string) ?? '' } : undefined;
    case 'TodoWrite':
      return Array.isArray(i.todos) ? { kind: 'todo_list', items: i.todos } : undefined;
    default:
      return undefined;
  }
}

/** The longest `view` line. */
const VIEW_CHARS = 160;

/** One line of at most VIEW_CHARS characters (the first non-empty line; `…` when cut). */
function line(x: unknown): string | undefined {
  if (typeof x !== 'string') return undefined;
  const first = x.split('\n').map((l) => l.trim()).find((l) => l.length > 0);
  if (!first) return undefined;
  return first.length > VIEW_CHARS ? `${first.slice(0, VIEW_CHARS - 1)}…` : first;
}

/**
 * A tool frame's `view` (spec/clients.md B3, a string): the call in one line, as a client's collapsed tool row shows
 * it: Bash its description, else its command's first line; Read / Write / Edit the path; Glob / Grep the pattern
 * (`in <path>` when given); WebFetch the URL; WebSearch the query; Agent its description; Skill the skill name;
 * AskUserQuestion the first question; TodoWrite the item count; an MCP tool `<server>: <tool>`. Undefined otherwise.
 */
export function toolView(name: string, input: unknown): string | undefined {
  const i = (input && typeof input === 'object' && !Array.isArray(input) ? input : {}) as Input;
  const path = str(i.file_path) ?? str(i.path);
  switch (name) {
    case 'Bash':
      return line(i.description) ?? line(i.command);
    case 'Read':
    case 'Write':
    case 'Edit':
      return line(path);
    case 'Glob':
    case 'Grep': {
      const pattern = line(i.pattern);
      return pattern && str(i.path) ? line(`${pattern} in ${i.path}`) : pattern;
    }
    case 'WebFetch':
      return line(i.url);
    case 'WebSearch':
      return line(i.query);
    case 'Agent':
      return line(i.description);
    case 'Skill':
      return line(i.skill);
    case 'AskUserQuestion':
      return Array.isArray(i.questions) ? line((i.questions[0] as Input | undefined)?.question) : undefined;
    case 'TodoWrite':
      return Array.isArray(i.todos) ? `${i.todos.length} item${i.todos.length === 1 ? '' : 's'}` : undefined;
    default: {
      const mcp = /^mcp__(.+?)__(.+)$/.exec(name);
      return mcp ? line(`${mcp[1]}: ${mcp[2]}`) : undefined;
    }
  }
}
