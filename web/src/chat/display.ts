// A tool call's `display` block (spec/clients.md B3) read defensively: the daemon sends an object with a
// `kind` (`command` with command / cwd / language, `diff` with path and a unified diff or old / new text,
// `file_io` with operation and path, `todo_list` with items); older payloads and approval requests carry a
// plain string. Anything else is shown as text.

export type Shown =
  | { kind: 'command'; command: string; cwd?: string; description?: string }
  | { kind: 'diff'; path?: string; diff?: string; oldText?: string; newText?: string }
  | { kind: 'file_io'; operation: string; path: string }
  | { kind: 'todo_list'; items: Array<{ title: string; status: string }> }
  | { kind: 'text'; text: string };

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const isObj = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

/** A todo item as either wire shape: `{title, status}` (transcript) or `{content, status}` (TodoWrite input). */
function todoItem(x: unknown): { title: string; status: string } | null {
  if (!isObj(x)) return null;
  const title = str(x.title) ?? str(x.content) ?? str(x.text);
  return title === undefined ? null : { title, status: str(x.status) ?? 'pending' };
}

/** What a display block (or a string) says, or null when there is nothing to show. */
export function readDisplay(d: unknown): Shown | null {
  if (d === undefined || d === null) return null;
  if (typeof d === 'string') return d.trim() ? { kind: 'text', text: d } : null;
  if (!isObj(d)) return { kind: 'text', text: JSON.stringify(d) };
  switch (d.kind) {
    case 'command': {
      const command = str(d.command);
      if (command !== undefined) return { kind: 'command', command, ...(str(d.cwd) ? { cwd: str(d.cwd) } : {}), ...(str(d.description) ? { description: str(d.description) } : {}) };
      break;
    }
    case 'diff':
      return { kind: 'diff', path: str(d.path), diff: str(d.diff), oldText: str(d.oldText) ?? str(d.old_text), newText: str(d.newText) ?? str(d.new_text) };
    case 'file_io': {
      const path = str(d.path);
      if (path !== undefined) return { kind: 'file_io', operation: str(d.operation) ?? 'read', path };
      break;
    }
    case 'todo_list':
      if (Array.isArray(d.items)) return { kind: 'todo_list', items: d.items.map(todoItem).filter((x): x is { title: string; status: string } => !!x) };
      break;
    default:
      break;
  }
  // An unknown kind, or a known one without its fields: its text, else the whole block.
  const text = str(d.text) ?? str(d.command) ?? str(d.path);
  return { kind: 'text', text: text ?? JSON.stringify(d, null, 2) };
}

/** The display's one line (a command's first line, a path): what a collapsed row or a card's heading names. */
export function displayLine(s: Shown | null): string | undefined {
  if (!s) return undefined;
  switch (s.kind) {
    case 'command': return s.command.split('\n').find((l) => l.trim()) ?? s.command;
    case 'diff': return s.path;
    case 'file_io': return s.path;
    case 'todo_list': return `${s.items.length} item${s.items.length === 1 ? '' : 's'}`;
    case 'text': return s.text.split('\n').find((l) => l.trim());
  }
}
