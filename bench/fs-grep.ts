import { spawn } from 'node:child_process';
import { rgPath } from '@vscode/ripgrep';
import { ensureTree, NEEDLE } from './fs-search.ts';
import { startDaemon } from './lib/daemon.ts';
import { ApiClient } from './lib/http.ts';
import { runBench } from './lib/lifecycle.ts';
import { intEnv, progress } from './lib/report.ts';
import { median, round, since } from './lib/stats.ts';

const RUNS = intEnv('BENCH_RUNS', 10);
const TARGET_RATIO = 1.2;
const CONTEXT = 2;

/**
 * The same search from the command line: the flags fs:grep passes (hidden
 * files, .gitignore without a repo, literal, case-sensitive, 2 lines of
 * context) minus `--json` and the limits; output drained through a pipe.
 */
function rgCli(root: string): Promise<{ ms: number; bytes: number }> {
  const args = ['--no-config', '--hidden', '--no-require-git', '--fixed-strings', '--case-sensitive', '--context', String(CONTEXT), '--glob', '!.git', '--regexp', NEEDLE, '--', '.'];
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(rgPath, args, { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
    let bytes = 0;
    child.stdout.on('data', (d: Buffer) => (bytes += d.length));
    child.once('error', reject);
    child.once('close', (code) => (code === 0 ? resolve({ ms: since(t0), bytes }) : reject(new Error(`rg exited with ${code}`))));
  });
}

runBench('fs-grep', 10 * 60_000, async (scope) => {
  const { root, files } = await ensureTree();
  const daemon = await startDaemon(scope, await scope.tempDir('home'));
  const client = new ApiClient(daemon.baseUrl);
  scope.defer(() => client.close());
  const session = await client.ok('POST', '/api/v1/sessions', { metadata: { cwd: root } });
  const url = `/api/v1/sessions/${session.id}/fs:grep`;
  const body = { pattern: NEEDLE, context_lines: CONTEXT };
  const api = async () => {
    const t0 = performance.now();
    const data = await client.ok('POST', url, body);
    return { ms: since(t0), data };
  };
  progress('warming up (page cache, JIT)');
  for (let i = 0; i < 2; i++) {
    await api();
    await rgCli(root);
  }
  // Interleaved, so both sides see the same machine load.
  const apiMs: number[] = [];
  const cliMs: number[] = [];
  let last: any;
  for (let i = 0; i < RUNS; i++) {
    const a = await api();
    apiMs.push(a.ms);
    last = a.data;
    cliMs.push((await rgCli(root)).ms);
  }
  const ratio = round(median(apiMs) / median(cliMs));
  return {
    description: `POST /api/v1/sessions/{id}/fs:grep {pattern: literal, context_lines: ${CONTEXT}} against a spawned daemon vs the same ripgrep binary run directly (same flags, plain output to a pipe), on a 100,000-file tree; medians of ${RUNS} interleaved runs each`,
    target: { ratio_max: TARGET_RATIO },
    files: files.length,
    files_with_matches: last.files.length,
    files_scanned: last.files_scanned,
    truncated: last.truncated,
    api_ms: { median: median(apiMs), min: round(Math.min(...apiMs)), max: round(Math.max(...apiMs)) },
    rg_cli_ms: { median: median(cliMs), min: round(Math.min(...cliMs)), max: round(Math.max(...cliMs)) },
    ratio,
    pass: ratio <= TARGET_RATIO,
  };
});
