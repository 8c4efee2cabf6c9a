import { spawn, execFileSync } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { tempDir } from './fs.ts';

/** A plugin folder with the documented layout (docs/plugins.md): manifest, one skill, MCP servers, hooks, commands. */
export async function pluginFolder(opts: {
  name: string; version?: string; skill?: string; mcpServers?: Record<string, unknown>; hooks?: unknown[]; commands?: string[]; dir?: string;
}): Promise<string> {
  const dir = opts.dir ?? (await tempDir());
  await mkdir(dir, { recursive: true });
  await writeFile(path.join(dir, 'plugin.json'), JSON.stringify({ name: opts.name, displayName: `The ${opts.name}`, ...(opts.version ? { version: opts.version } : {}) }));
  if (opts.skill) {
    await mkdir(path.join(dir, 'skills', opts.skill), { recursive: true });
    await writeFile(path.join(dir, 'skills', opts.skill, 'SKILL.md'), `---\nname: ${opts.skill}\ndescription: from ${opts.name}\n---\nDo the ${opts.skill} thing.\n`);
  }
  if (opts.mcpServers) await writeFile(path.join(dir, 'mcp.json'), JSON.stringify({ mcpServers: opts.mcpServers }));
  if (opts.hooks) await writeFile(path.join(dir, 'hooks.json'), JSON.stringify({ hooks: opts.hooks }));
  for (const c of opts.commands ?? []) {
    await mkdir(path.join(dir, 'commands'), { recursive: true });
    await writeFile(path.join(dir, 'commands', `${c}.md`), `Run ${c}.\n`);
  }
  return dir;
}

/** An HTTP server on loopback; stopped at teardown. */
export async function loopbackServer(t: { teardown(fn: () => unknown): void }, handler: http.RequestListener): Promise<string> {
  const server = http.createServer(handler);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(() => new Promise<void>((r) => {
    server.close(() => r());
    server.closeAllConnections();
  }));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8', env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' } }).trim();

/** A bare repository `<root>/<owner>/<repo>` made from commits of `work` (a working tree); answers the helpers to commit and tag. */
export async function gitRepo(root: string, owner: string, repo: string) {
  const work = await tempDir();
  git(work, 'init', '-q', '-b', 'main');
  const bare = path.join(root, owner, repo);
  await mkdir(path.dirname(bare), { recursive: true });
  execFileSync('git', ['init', '-q', '--bare', '-b', 'main', bare]);
  git(work, 'remote', 'add', 'origin', bare);
  return {
    work,
    commit(message: string): string {
      git(work, 'add', '-A');
      git(work, 'commit', '-q', '-m', message);
      git(work, 'push', '-q', 'origin', 'HEAD:main', '--tags', '--force');
      return git(work, 'rev-parse', 'HEAD');
    },
    tag(name: string) {
      git(work, 'tag', name);
      git(work, 'push', '-q', 'origin', name);
    },
    branch(name: string) {
      git(work, 'push', '-q', 'origin', `HEAD:refs/heads/${name}`);
    },
  };
}

/** `git http-backend` as CGI behind a loopback HTTP server: `<base>/<owner>/<repo>` clones `<root>/<owner>/<repo>`. */
export async function gitHttpServer(t: { teardown(fn: () => unknown): void }, root: string): Promise<string> {
  return loopbackServer(t, (req, res) => {
    const u = new URL(req.url ?? '/', 'http://x');
    const child = spawn('git', ['http-backend'], {
      env: {
        ...process.env, GIT_PROJECT_ROOT: root, GIT_HTTP_EXPORT_ALL: '1', PATH_INFO: decodeURIComponent(u.pathname),
        REQUEST_METHOD: req.method ?? 'GET', QUERY_STRING: u.search.slice(1), CONTENT_TYPE: req.headers['content-type'] ?? '',
        ...(req.headers['git-protocol'] ? { GIT_PROTOCOL: String(req.headers['git-protocol']) } : {}),
        ...(req.headers['content-encoding'] ? { HTTP_CONTENT_ENCODING: String(req.headers['content-encoding']) } : {}),
        REMOTE_ADDR: '127.0.0.1',
      },
    });
    req.pipe(child.stdin);
    let head = Buffer.alloc(0);
    let headersDone = false;
    child.stdout.on('data', (chunk: Buffer) => {
      if (headersDone) return void res.write(chunk);
      head = Buffer.concat([head, chunk]);
      const sep = head.indexOf('\r\n\r\n');
      const sepLen = sep >= 0 ? 4 : 2;
      const at = sep >= 0 ? sep : head.indexOf('\n\n');
      if (at < 0) return;
      headersDone = true;
      let status = 200;
      for (const line of head.subarray(0, at).toString().split(/\r?\n/)) {
        const i = line.indexOf(':');
        const k = line.slice(0, i).trim();
        const val = line.slice(i + 1).trim();
        if (k.toLowerCase() === 'status') status = Number(val.split(' ')[0]);
        else res.setHeader(k, val);
      }
      res.writeHead(status);
      res.write(head.subarray(at + sepLen));
    });
    child.on('close', () => res.end());
  });
}
