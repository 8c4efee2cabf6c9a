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
