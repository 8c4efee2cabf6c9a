// `svc-code -p` cold wall time (docs/benchmarks.md "Print mode"): the built bin as a user runs it, a one-word
// answer from the fixture LLM, each run a fresh process on a fresh home. Also times what the run is made of:
// node's own start, the bin's module graph (`svc-code -p --help` loads print mode's whole graph and exits).
// Usage: node --import tsx bench/print-cold.ts [runs]
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startFixtureLlm } from '../fixtures/llm/index.ts';

const runs = Number(process.argv[2] ?? 7);
const bin = path.join(import.meta.dirname, '..', 'bin/svc-code.js');
const llm = await startFixtureLlm();

// Spawned asynchronously: the fixture LLM answers from this process's event loop.
async function timed(argv: string[], env: NodeJS.ProcessEnv, cwd: string): Promise<number> {
  const t0 = performance.now();
  const child = spawn(argv[0]!, argv.slice(1), { cwd, env, stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  child.stderr.on('data', (d) => (err += d));
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
  const ms = performance.now() - t0;
  if (code !== 0) throw new Error(`${argv.join(' ')} exited ${code}: ${err}`);
  return ms;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const rows: Record<string, number[]> = { node: [], help: [], print: [] };
for (let i = 0; i < runs; i++) {
  const home = mkdtempSync(path.join(os.tmpdir(), 'print-bench-home-'));
  const cwd = mkdtempSync(path.join(os.tmpdir(), 'print-bench-ws-'));
  writeFileSync(path.join(home, 'config.toml'), `default_model = "fx/model"\nauto_session_title = false\n[providers.fx]\ntype = "chat_compat"\nbase_url = "${llm.url}/v1"\napi_key = "k"\n[models."fx/model"]\nprovider = "fx"\nmodel = "m"\nmax_context_size = 100000\n`);
  const env: NodeJS.ProcessEnv = { ...process.env, SVC_CODE_HOME: home };
  delete env.NODE_OPTIONS;
  llm.setScript({ events: [{ text: 'Paris' }] });
  rows.node!.push(await timed([process.execPath, '-e', ''], env, cwd));
  rows.help!.push(await timed([bin, '-p', '--help'], env, cwd));
  rows.print!.push(await timed([bin, '-p', 'Capital of France? One word.'], env, cwd));
  rmSync(home, { recursive: true, force: true });
  rmSync(cwd, { recursive: true, force: true });
}
await llm.close();
const out = Object.fromEntries(Object.entries(rows).map(([k, xs]) => [k, { median_ms: Math.round(median(xs)), min_ms: Math.round(Math.min(...xs)), max_ms: Math.round(Math.max(...xs)) }]));
console.log(JSON.stringify({ runs, node: process.version, loadavg: os.loadavg().map((x) => +x.toFixed(2)), ...out }));
