import { rm, symlink, truncate, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { git, tempDir, writeFiles } from './fs.ts';
import { startTestServer, type TestServer } from './server.ts';

/** 11 MiB: over the 10 MiB fs:read cap. */
export const BIG_FILE_BYTES = 11 * 1024 * 1024;
export const LATIN1_TEXT = 'café crème\nna\u00efve\n';
export const UTF16_TEXT = 'héllo\nwörld\n';
/** Bytes of bin.dat: NUL bytes among others. */
export const BINARY_BYTES = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x01, 0x02, 0x00, 0xff, 0x10]);

export interface FsFixture {
  s: TestServer;
  /** Workspace root (a git repo). */
  ws: string;
  /** A directory outside the workspace (the escaping symlink's target). */
  outside: string;
  sessionId: string;
  /** POST /api/v1/sessions/{id}/fs:{action}. */
  fs(action: string, body?: unknown): Promise<any>;
}

const put = (root: string, rel: string, content: string | Buffer) => writeFiles(root, { [rel]: content });

/**
 * A git workspace with committed, modified, untracked and ignored files,
 * nested directories (one with its own .gitignore), hidden files, binary,
 * latin1 and UTF-16 text, an 11 MiB sparse file, and symlinks (one inside,
 * one escaping to another temp dir).
 */
export async function buildWorkspace(): Promise<{ ws: string; outside: string }> {
  const ws = await tempDir('svc-code-fs-');
  const outside = await tempDir('svc-code-outside-');
  await put(outside, 'secret.txt', 'outside\n');
  await put(ws, '.gitignore', '*.log\nbuild/\n');
  await put(ws, 'README.md', '# Title\n\nline three\n');
  await put(ws, 'src/index.ts', 'export const a = 1;\n');
  await put(ws, 'src/util.ts', 'export const u = 2;\n');
  await put(ws, 'src/deep/nested/file.md', 'deep\n');
  await put(ws, 'src/.gitignore', 'generated.ts\n');
  git(ws, 'init', '-q');
  git(ws, 'add', '-A');
  git(ws, 'commit', '-q', '-m', 'init');
  await put(ws, 'src/index.ts', 'export const a = 42;\n');
  await put(ws, 'src/generated.ts', '// generated\n');
  await put(ws, 'new.txt', 'untracked\n');
  await put(ws, 'debug.log', 'ignored log\n');
  await put(ws, 'build/out.js', 'ignored build output\n');
  await put(ws, '.hidden-file', 'hidden\n');
  await put(ws, '.config/settings.json', '{"a":1}\n');
  await put(ws, 'bin.dat', BINARY_BYTES);
  await put(ws, 'latin1.txt', Buffer.from(LATIN1_TEXT, 'latin1'));
  await put(ws, 'utf16.txt', Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(UTF16_TEXT, 'utf16le')]));
  await writeFile(path.join(ws, 'big.bin'), '');
  await truncate(path.join(ws, 'big.bin'), BIG_FILE_BYTES);
  await symlink(outside, path.join(ws, 'link-out'));
  await symlink(path.join(ws, 'src', 'util.ts'), path.join(ws, 'link-in'));
  return { ws, outside };
}

/** A running server with a session on a freshly built workspace; everything is removed on teardown. */
export async function startFsFixture(teardown: (fn: () => Promise<void>) => void): Promise<FsFixture> {
  const s = await startTestServer();
  const { ws, outside } = await buildWorkspace();
  teardown(async () => {
    await s.stop();
    await rm(ws, { recursive: true, force: true });
    await rm(outside, { recursive: true, force: true });
  });
  const created = await s.post('/api/v1/sessions', { metadata: { cwd: ws } });
  if (created.code !== 0) throw new Error(`session create failed: ${JSON.stringify(created)}`);
  const sessionId = created.data.id as string;
  return { s, ws, outside, sessionId, fs: (action, body = {}) => s.post(`/api/v1/sessions/${sessionId}/fs:${action}`, body) };
}

/** Names of entries, in order. */
export function names(entries: { name: string }[]): string[] {
  return entries.map((e) => e.name);
}
