import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { Codes } from '../../protocol/codes.ts';
import { ApiError, notFound, validationError } from '../../protocol/errors.ts';
import type { McpServerConfig } from '../../protocol/schemas/mcp.ts';
import { writeFileAtomic } from '../lib/fs-atomic.ts';
import type { Catalog } from './catalog.ts';
import { MCP_FILE_MAX_BYTES, readLayerFile, userFile } from './layers.ts';

export type UserFileWrite =
  | { op: 'create'; name: string; config: McpServerConfig }
  | { op: 'replace'; name: string; config: McpServerConfig }
  | { op: 'delete'; name: string };

/**
 * Writes to the user-level mcp.json, the only mutable layer: checked against the catalog the
 * caller sees (a project-layer name is read-only there; a plugin name is not, the file entry
 * shadows it), written atomically with mode 0600 (env and headers may hold secrets), keeping the
 * file's other keys. Writes are serialised so two requests never lose one another's entry.
 */
export class UserMcpFile {
  private chain: Promise<unknown> = Promise.resolve();

  constructor(private readonly home: string) {}

  get file(): string {
    return userFile(this.home);
  }

  write(w: UserFileWrite, seen: Catalog): Promise<void> {
    const run = this.chain.then(() => this.apply(w, seen));
    this.chain = run.catch(() => undefined);
    return run;
  }

  private async apply(w: UserFileWrite, seen: Catalog): Promise<void> {
    const current = await readLayerFile(this.file, 'user');
    if (current.corrupt) throw validationError([{ field: 'name', message: `the user MCP file cannot be read (${current.corrupt}); fix or remove ${this.file} first` }]);
    const project = seen.entries.find((e) => e.name === w.name && (e.layer === 'project-root' || e.layer === 'project-local'));
    if (project) throw readOnly(w.name, `declared by the project layer ${project.origin}`);
    const table = { ...((current.raw.mcpServers ?? {}) as Record<string, unknown>) };
    const exists = Object.hasOwn(table, w.name);
    if (w.op === 'create') {
      if (exists) throw validationError([{ field: 'name', message: `a server named "${w.name}" already exists in ${this.file}` }]);
      table[w.name] = w.config;
    } else {
      if (!exists) {
        const other = seen.entries.find((e) => e.name === w.name);
        if (other) throw readOnly(w.name, other.layer === 'plugin' ? `declared by plugin ${other.origin}` : `declared by ${other.origin}`);
        throw notFound(Codes.MCP_SERVER_NOT_FOUND, 'MCP server', w.name);
      }
      if (w.op === 'replace') table[w.name] = w.config;
      else delete table[w.name];
    }
    const text = `${JSON.stringify({ ...current.raw, mcpServers: table }, null, 2)}\n`;
    if (text.length > MCP_FILE_MAX_BYTES) throw validationError([{ field: 'body', message: `the user MCP file would exceed ${MCP_FILE_MAX_BYTES} bytes`, limit: MCP_FILE_MAX_BYTES }]);
    await mkdir(path.dirname(this.file), { recursive: true });
    await writeFileAtomic(this.file, text, 0o600);
  }
}

function readOnly(name: string, why: string): ApiError {
  return validationError([{ field: 'name', message: `"${name}" is read-only: ${why}; only user-level entries are mutable` }]);
}
