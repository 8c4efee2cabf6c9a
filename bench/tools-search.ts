import { spawn } from 'node:child_process';
import path from 'node:path';
import { rgPath } from '@vscode/ripgrep';
import * as v from 'valibot';
import { ensureTree, NEEDLE } from './fs-search.ts';
import { runBench } from './lib/lifecycle.ts';
import { intEnv, progress } from './lib/report.ts';
import { median, round, since } from './lib/stats.ts';
import { globTool } from '../src/tools/glob.ts';
import { grepTool } from '../src/tools/grep.ts';
import type { ToolContext, ToolDef } from '../src/tools/types.ts';

const RUNS = intEnv('BENCH_RUNS', 10);
const WARMUP = 2;
const TARGET_RATIO = 1.2;

interface Case {
  name: string;
  tool: ToolDef;
  input: Record<string, unknown>;
  /** The ripgrep command line a user would type for the same answer. */
  rg: string[];
  /** Glob: the same listing sorted newest first by rg itself, as the tool answers (reference only). */
  rgSorted?: string[];
}

/** Every file of the tree has a line "<word> line 11 of file <i> <word>": 100,000 matching lines. */
const EVERY_FILE = 'line 11 of file';
const CASES: Case[] = [
  { name: 'grep_files_with_matches', tool: grepTool, input: { pattern: NEEDLE }, rg: ['-l', NEEDLE] },
  { name: 'grep_content', tool: grepTool, input: { pattern: NEEDLE, output_mode: 'content' }, rg: ['-n', NEEDLE] },
  { name: 'grep_content_100k_lines', tool: grepTool, input: { pattern: EVERY_FILE, output_mode: 'content' }, rg: ['-n', EVERY_FILE] },
  { name: 'grep_count', tool: grepTool, input: { pattern: NEEDLE, output_mode: 'count' }, rg: ['-c', NEEDLE] },
  { name: 'glob_broad', tool: globTool, input: { pattern: '**/*.ts' }, rg: ['--files', '--glob', '**/*.ts'], rgSorted: ['--files', '--glob', '**/*.ts', '--sortr', 'modified'] },
  { name: 'glob_narrow', tool: globTool, input: { pattern: '**/*-50?.md' }, rg: ['--files', '--glob', '**/*-50?.md'], rgSorted: ['--files', '--glob', '**/*-50?.md', '--sortr', 'modified'] },
];

/** The rg CLI, output drained through a pipe (exit 1 = no match is fine). */
function rgCli(cwd: string, args: string[]): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(rgPath, args, { cwd, stdio: ['ignore', 'pipe', 'inherit'] });
    child.stdout.resume();
    child.once('error', reject);
    child.once('close', (code) => (code === 0 || code === 1 ? resolve(since(t0)) : reject(new Error(`rg exited with ${code}`))));
  });
}

/**
 * What the engine's executor does for a call: validate the input with the tool's schema, then
 * `tool.run` with a context. Only `session.cwd`, `signal` and `confine` are used by these tools;
 * `confine` here resolves inside the root without the realpath checks (well under 1 ms).
 */
function toolRunner(cwd: string) {
  const ctx = {
    session: { cwd },
    signal: new AbortController().signal,
    confine: async (given: string) => ({ abs: path.resolve(cwd, given), rel: path.relative(cwd, path.resolve(cwd, given)) || '.', root: cwd }),
  } as unknown as ToolContext;
  return async (c: Case) => {
    const t0 = performance.now();
    const r = await c.tool.run(v.parse(c.tool.schema, c.input), ctx);
    return { ms: since(t0), out: typeof r === 'string' ? r : r.text };
  };
}

runBench('tools-search', 10 * 60_000, async (scope) => {
  const { root, files } = await ensureTree();
  void scope;
  const run = toolRunner(root);
  const results: Record<string, unknown> = {};
  let pass = true;
  for (const c of CASES) {
    for (let i = 0; i < WARMUP; i++) {
      await run(c);
      await rgCli(root, c.rg);
    }
    // Interleaved, so both sides see the same machine load.
    const tool: number[] = [];
    const cli: number[] = [];
    const sorted: number[] = [];
    let out = '';
    for (let i = 0; i < RUNS; i++) {
      const r = await run(c);
      tool.push(r.ms);
      out = r.out;
      cli.push(await rgCli(root, c.rg));
      if (c.rgSorted) sorted.push(await rgCli(root, c.rgSorted));
    }
    const ratio = round(median(tool) / median(cli));
    pass &&= ratio <= TARGET_RATIO;
    progress(`${c.name}: tool ${median(tool)} ms, rg ${median(cli)} ms, ratio ${ratio}`);
    results[c.name] = {
      input: c.input,
      rg_cli: `rg ${c.rg.map((a) => (/[\s*?]/.test(a) ? `'${a}'` : a)).join(' ')}`,
      result_lines: out.split('\n').length,
      tool_ms: { median: median(tool), min: round(Math.min(...tool)), max: round(Math.max(...tool)) },
      rg_cli_ms: { median: median(cli), min: round(Math.min(...cli)), max: round(Math.max(...cli)) },
      ratio,
      ...(c.rgSorted ? {
        rg_sorted_cli: `rg ${c.rgSorted.map((a) => (/[\s*?]/.test(a) ? `'${a}'` : a)).join(' ')}`,
        rg_sorted_cli_ms: median(sorted),
        ratio_vs_sorted: round(median(tool) / median(sorted)),
      } : {}),
    };
  }
  return {
    note: 'Glob answers newest first, so it stats every match; rg --files does not. ratio_vs_sorted compares with rg doing the same sort (--sortr modified, single-threaded).',
    description: `Grep and Glob tools run in-process as the engine's executor runs them (schema parse, then tool.run) on a ${files.length}-file tree, ` +
      `against the ripgrep binary the tools use run directly from the tree root with the equivalent command line, output drained through a pipe; ` +
      `${WARMUP} warm-up pairs, then medians of ${RUNS} interleaved runs each`,
    target: { ratio_max: TARGET_RATIO },
    files: files.length,
    cases: results,
    pass,
  };
});
