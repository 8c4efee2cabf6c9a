// A tool frame's `display` block (spec/clients.md B3, C2 "tool call started"): what the call does, derived from its
// name and parsed input (the journaled `tool.call.started`), for the tools whose block kind the clients know.
// Other tools get none: the client renders `input`.

type Input = Record<string, unknown>;

const str = (x: unknown): string | undefined => (typeof x === 'string' ? x : undefined);

/** The longest `view` line. */
const VIEW_CHARS = 160;

/** One line of at most VIEW_CHARS characters (the first non-empty line; `…` when cut). */
function line(x: unknown): string | undefined {
  if (typeof x !== 'string') return undefined;
  const first = x.split('\n').map((l) => l.trim()).find((l) => l.length > 0);
  if (!first) return undefined;
  return first.length > VIEW_CHARS ? `${first.slice(0, VIEW_CHARS - 1)}…` : first;
}

/** How a tool's call is shown: its `display` block (B3) and its one-line `view`; `path` is `file_path`, else `path`. */
interface ToolShown {
  display?: (i: Input, path: string | undefined) => Record<string, unknown> | undefined;
  view?: (i: Input, path: string | undefined) => string | undefined;
}

const fileIo = (operation: 'read' | 'write'): ToolShown => ({
  display: (_i, path) => (path ? { kind: 'file_io', operation, path } : undefined),
  view: (_i, path) => line(path),
});
const search: ToolShown = {
  view: (i) => {
    const pattern = line(i.pattern);
    return pattern && str(i.path) ? line(`${pattern} in ${i.path}`) : pattern;
  },
};

/** The tools whose calls have a display block or a view (an MCP tool's view is its server and name). */
const TOOLS = new Map<string, ToolShown>([
  ['Bash', {
    display: (i) => (str(i.command) !== undefined ? { kind: 'command', command: i.command, ...(str(i.description) ? { description: i.description } : {}) } : undefined),
    view: (i) => line(i.description) ?? line(i.command),
  }],
  ['Read', fileIo('read')],
  ['Write', fileIo('write')],
  ['Edit', {
    display: (i, path) => (path ? { kind: 'diff', path, oldText: str(i.old_string) ?? '', newText: str(i.new_string) ?? '' } : undefined),
    view: (_i, path) => line(path),
  }],
  ['Glob', search],
  ['Grep', search],
  ['WebFetch', { view: (i) => line(i.url) }],
  ['WebSearch', { view: (i) => line(i.query) }],
  ['Agent', { view: (i) => line(i.description) }],
  ['Skill', { view: (i) => line(i.skill) }],
  ['AskUserQuestion', { view: (i) => (Array.isArray(i.questions) ? line((i.questions[0] as Input | undefined)?.question) : undefined) }],
  ['TodoWrite', {
    display: (i) => (Array.isArray(i.todos) ? { kind: 'todo_list', items: i.todos } : undefined),
    view: (i) => (Array.isArray(i.todos) ? `${i.todos.length} item${i.todos.length === 1 ? '' : 's'}` : undefined),
  }],
]);

const isInput = (x: unknown): x is Input => !!x && typeof x === 'object' && !Array.isArray(x);
const pathOf = (i: Input) => str(i.file_path) ?? str(i.path);

/** The display block of a call, or undefined (a call whose input is not an object has none). */
export function toolDisplay(name: string, input: unknown): Record<string, unknown> | undefined {
  const display = TOOLS.get(name)?.display;
  return display && isInput(input) ? display(input, pathOf(input)) : undefined;
}

/**
 * A tool frame's `view` (spec/clients.md B3, a string): the call in one line, as a client's collapsed tool row shows
 * it: Bash its description, else its command's first line; Read / Write / Edit the path; Glob / Grep the pattern
 * (`in <path>` when given); WebFetch the URL; WebSearch the query; Agent its description; Skill the skill name;
 * AskUserQuestion the first question; TodoWrite the item count; an MCP tool `<server>: <tool>`. Undefined otherwise.
 */
export function toolView(name: string, input: unknown): string | undefined {
  const i = isInput(input) ? input : {};
  const shown = TOOLS.get(name);
  if (shown) return shown.view?.(i, pathOf(i));
  const mcp = /^mcp__(.+?)__(.+)$/.exec(name);
  return mcp ? line(`${mcp[1]}: ${mcp[2]}`) : undefined;
}
