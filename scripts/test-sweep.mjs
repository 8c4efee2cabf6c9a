#!/usr/bin/env node
// The test sweep (issue 31): every test file alone, one ava process at a time with the project's ava config,
// on a quiet machine and with both cores busy, on Node 20 (this node) and Node 24 (scripts/node24.mjs), so a test
// whose outcome depends on the machine's speed shows up as a cell that differs. Prints a table as it goes and at
// the end, and writes the results as JSON.
//
//   node scripts/test-sweep.mjs [options] [glob ...]
//     glob             test files to run (default: the ava config's `files`), e.g. 'test/ws/**' or test/ws/hub.test.ts
//     --modes LIST     alone,loaded (default both): loaded starts two busy loops (`node -e "for(;;){}"`) for the
//                      mode's files and stops them by pid when the mode ends, on Ctrl-C and on failure
//     --nodes LIST     20,24 (default both); 20 is the node running this script
//     --repeat N       runs of each file per cell (default 1); a cell passes when every run passed
//     --timeout S      seconds one ava run may take before its process group is killed (default 600)
//     --json FILE      where the JSON goes (default <out>/sweep.json; - prints it to stdout)
//     --out DIR        where each run's output goes (default a new directory under the OS temp dir)
//     --resume FILE    a JSON of an earlier sweep (stopped, or of another session): its passing cells are kept and
//                      not run again, its failed ones run again; the JSON (--json, default FILE itself) holds both
//
// The files go one after the other, each through all its cells (alone then loaded, Node 20 then 24), so a sweep
// stopped part way leaves whole rows. The JSON is written after every cell, with the commit each cell ran on.
// The whole sweep takes a long time (~230 files x 4 cells, about 5 hours): run it on a quiet machine, in parts
// with --resume if need be; a glob for one folder or file is the way to check a fix.
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import picomatch from 'picomatch';
import { ensureNode24, envFor } from './node24.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const AVA = path.join(ROOT, 'node_modules', 'ava', 'entrypoints', 'cli.mjs');
const MODES = ['alone', 'loaded'];
const NODES = ['20', '24'];

function options() {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      modes: { type: 'string', default: MODES.join(',') },
      nodes: { type: 'string', default: NODES.join(',') },
      repeat: { type: 'string', default: '1' },
      timeout: { type: 'string', default: '600' },
      json: { type: 'string' },
      out: { type: 'string' },
      resume: { type: 'string' },
    },
  });
  const list = (s, allowed, what) => {
    const items = s.split(',').map((x) => x.trim()).filter(Boolean);
    const bad = items.filter((x) => !allowed.includes(x));
    if (bad.length || !items.length) throw new Error(`--${what}: ${s} (allowed: ${allowed.join(', ')})`);
    return items;
  };
  const int = (s, what) => {
    const n = Number(s);
    if (!Number.isInteger(n) || n < 1) throw new Error(`--${what}: ${s} is not a positive integer`);
    return n;
  };
  return {
    globs: positionals,
    modes: list(values.modes, MODES, 'modes'),
    nodes: list(values.nodes, NODES, 'nodes'),
    repeat: int(values.repeat, 'repeat'),
    timeoutMs: int(values.timeout, 'timeout') * 1000,
    json: values.json ?? values.resume,
    out: values.out,
    resume: values.resume,
  };
}

/** The test files: the ava config's `files` globs, narrowed to `globs` when given. */
function testFiles(globs) {
  const ava = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')).ava;
  const inConfig = picomatch(ava.files);
  // A bare directory or file given on the command line matches what is under it.
  const wanted = globs.length ? picomatch(globs.flatMap((g) => [g, `${g.replace(/\/$/, '')}/**`])) : () => true;
  return readdirSync(path.join(ROOT, 'test'), { recursive: true })
    .map((f) => `test/${String(f).split(path.sep).join('/')}`)
    .filter((f) => inConfig(f) && wanted(f))
    .sort();
}

/** The busy loops of the loaded mode, stopped by their pids. */
function busyLoops() {
  const pids = [];
  return {
    start() {
      for (let i = 0; i < 2; i++) {
        // for(;;){}, that also ends when this script is gone (killed without a chance to stop it: its parent changes).
        const loop = `for (let i = 0; ; i++) if (!(i & 0x3ffffff) && process.ppid !== ${process.pid}) process.exit();`;
        const child = spawn(process.execPath, ['-e', loop], { stdio: 'ignore' });
        pids.push(child.pid);
      }
    },
    stop() {
      for (const pid of pids.splice(0)) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch (e) {
          if (e.code !== 'ESRCH') throw e;
        }
      }
    },
  };
}

/** The pid of the ava run going on, to end its process group on Ctrl-C. */
let current;

/** One ava process for `file`, in a process group of its own (ended whole at the timeout); its output to `log`. */
function runAva(node, file, log, timeoutMs) {
  const env = envFor(node);
  const started = performance.now();
  return new Promise((resolve) => {
    const child = spawn(node, [AVA, file], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    current = child.pid;
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(child.pid);
    }, timeoutMs);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      current = undefined;
      writeFileSync(log, out);
      const seconds = Math.round((performance.now() - started) / 100) / 10;
      const failed = out.split('\n').filter((l) => /✘/.test(l)).map((l) => l.trim()).slice(0, 5);
      resolve({ pass: code === 0 && !timedOut, code, signal, timedOut, seconds, failed });
    });
  });
}

function killGroup(pid) {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch (e) {
    if (e.code !== 'ESRCH') throw e;
  }
}

const row = (cells, widths) => cells.map((c, i) => String(c).padEnd(widths[i])).join('  ');
const WIDTHS = [60, 7, 5, 5, 8, 8];

function printTable(results) {
  console.log(`\n${row(['file', 'mode', 'node', 'result', 'seconds', 'commit'], WIDTHS)}`);
  for (const r of results) console.log(row([r.file, r.mode, r.node, r.pass ? 'pass' : 'FAIL', r.seconds.join('/'), r.commit ?? ''], WIDTHS));
  const failed = results.filter((r) => !r.pass);
  console.log(`\n${results.length} cells, ${failed.length} failed`);
}

const cellKey = (r) => `${r.file} ${r.mode} ${r.node}`;

/** The Node 24 version, asked once per run (not on every save). */
function node24Version(nodes) {
  return nodes['24'] ? spawnSync(nodes['24'], ['--version'], { encoding: 'utf8' }).stdout.trim() : undefined;
}

function sweepJson(node24, results) {
  return JSON.stringify({ node20: process.version, node24, results }, null, 2);
}

async function main() {
  const opts = options();
  const files = testFiles(opts.globs);
  if (!files.length) throw new Error(`no test file matches ${opts.globs.join(' ')}`);
  const out = opts.out ?? mkdtempSync(path.join(os.tmpdir(), 'svc-code-sweep-'));
  mkdirSync(out, { recursive: true });
  const nodes = Object.fromEntries(opts.nodes.map((v) => [v, v === '20' ? process.execPath : ensureNode24()]));
  if (!/^v20\./.test(process.version) && opts.nodes.includes('20')) throw new Error(`run the sweep with Node 20 (this is ${process.version})`);
  // The smoke suite runs dist/: build it once, as npm test does, before any file runs.
  if (spawnSync(process.execPath, ['scripts/build.mjs', '--if-stale'], { cwd: ROOT, stdio: 'inherit' }).status !== 0) throw new Error('the build failed');

  const busy = busyLoops();
  const stop = (signal) => {
    busy.stop();
    if (current) killGroup(current);
    console.error(`\nstopped by ${signal}; the runs so far are in ${out}`);
    process.exit(130);
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);

  const commit = spawnSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).stdout.trim();
  const kept = opts.resume ? JSON.parse(readFileSync(opts.resume, 'utf8')).results.filter((r) => r.pass) : [];
  const done = new Set(kept.map(cellKey));
  const results = [...kept];
  const jsonFile = opts.json === '-' ? undefined : (opts.json ?? path.join(out, 'sweep.json'));
  const node24 = node24Version(nodes);
  const save = () => jsonFile && writeFileSync(jsonFile, sweepJson(node24, results));
  console.log(`${files.length} files x modes ${opts.modes.join(',')} x nodes ${opts.nodes.join(',')} at ${commit}; ${kept.length} cells kept from ${opts.resume ?? '-'}; output in ${out}`);
  try {
    for (const file of files) {
      for (const mode of opts.modes) {
        for (const node of opts.nodes) {
          if (done.has(cellKey({ file, mode, node }))) continue;
          if (mode === 'loaded') busy.start();
          const runs = [];
          try {
            for (let i = 1; i <= opts.repeat; i++) {
              const log = path.join(out, `${file.replace(/[/\\]/g, '__')}.${mode}.node${node}.${i}.log`);
              runs.push({ ...(await runAva(nodes[node], file, log, opts.timeoutMs)), log });
            }
          } finally {
            busy.stop();
          }
          const r = { file, mode, node, commit, pass: runs.every((x) => x.pass), seconds: runs.map((x) => x.seconds), runs };
          results.push(r);
          save();
          console.log(row([file, mode, node, r.pass ? 'pass' : 'FAIL', r.seconds.join('/')], WIDTHS));
          for (const x of runs.filter((x) => !x.pass)) console.log(`    ${x.timedOut ? 'timed out' : `exit ${x.code ?? x.signal}`}: ${x.log}${x.failed.map((l) => `\n    ${l}`).join('')}`);
        }
      }
    }
  } finally {
    printTable(results);
    if (opts.json === '-') console.log(sweepJson(node24, results));
    else {
      save();
      console.log(`JSON: ${jsonFile}`);
    }
  }
  if (results.some((r) => !r.pass)) process.exitCode = 1;
}

main().catch((e) => {
  console.error(e instanceof Error ? e.message : e);
  process.exit(2);
});
