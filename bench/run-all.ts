import { spawn } from 'node:child_process';
import path from 'node:path';
import { ROOT } from './lib/daemon.ts';
import { progress } from './lib/report.ts';

/** Every benchmark, in the order they run. Pass names (`npm run bench -- rss ws-replay`) to run a subset. */
const BENCHES = ['cold-start', 'npm-start', 'session-create', 'session-list', 'ws-replay', 'append-fanout', 'rss', 'fs-list', 'fs-search', 'fs-grep', 'terminal-echo', 'tools-bash', 'tools-search', 'prompt-latency', 'live-sessions-memory', 'created-sessions-memory', 'mcp-call', 'mcp-sessions', 'hooks', 'stream-frames', 'stream-load', 'search', 'replay', 'web-ui', 'prompt-cache', 'long-session', 'takeover'];
const LIMIT_MS = 6 * 60_000;

/** Runs one script as a child process; its stdout must be one JSON object (stderr passes through). */
function run(name: string): Promise<unknown> {
  return new Promise((resolve) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'bench', `${name}.ts`)], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    // Each script has its own time limit; this one only guards against a script that ignores it.
    const timer = setTimeout(() => child.kill('SIGTERM'), LIMIT_MS);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      progress(`${name}: exit ${code ?? signal} after ${((performance.now() - t0) / 1000).toFixed(1)} s`);
      try {
        resolve(JSON.parse(out));
      } catch {
        resolve({ bench: name, error: `no JSON result (exit ${code ?? signal})`, stdout: out.slice(0, 2_000) });
      }
    });
  });
}

const wanted = process.argv.slice(2);
const unknown = wanted.filter((n) => !BENCHES.includes(n));
if (unknown.length) {
  process.stderr.write(`unknown benchmark(s): ${unknown.join(', ')}; known: ${BENCHES.join(', ')}\n`);
  process.exit(2);
}
const results: unknown[] = [];
for (const name of wanted.length ? wanted : BENCHES) {
  progress(`== ${name}`);
  results.push(await run(name));
}
process.stdout.write(`${JSON.stringify(results, null, 2)}\n`);
const failed = results.filter((r) => (r as { error?: string }).error);
process.exit(failed.length ? 1 : 0);
