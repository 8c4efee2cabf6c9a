#!/usr/bin/env node
// Node 24 for the test sweep (scripts/test-sweep.mjs) and CI's smoke run on the newest Node (.ci/run): the
// official binary as the npm registry ships it (the `node-<platform>-<arch>` package), installed once into a
// cache directory outside the repository, so the project's own Node 20 install is left alone.
//
//   node scripts/node24.mjs           prints the path of Node 24's `node`, installing it first when missing
//   node scripts/node24.mjs --check   also loads the native addons (node-pty, classic-level) with it: they are
//                                     Node-API builds, the same files for every Node version; exit 1 if one fails
//   node scripts/node24.mjs ava ARGS  checks as --check, then runs ava ARGS (the project's ava config) on Node 24,
//                                     Node 24 first on PATH so what the tests start (`npm start`, `node`) is Node 24
//                                     too (npm run test:node24: the smoke suite; CI runs it after npm test)
//
// SVC_CODE_NODE24_DIR names the cache directory (default ~/.cache/svc-code/node24); SVC_CODE_NODE24 the
// package version or range (default 24: the newest 24.x when first installed).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** The cache directory and package of Node 24 for this platform. */
export function node24Location(env = process.env) {
  const dir = env.SVC_CODE_NODE24_DIR || path.join(os.homedir(), '.cache', 'svc-code', 'node24');
  const pkg = `node-${process.platform}-${process.arch}`;
  return { dir, pkg, bin: path.join(dir, 'node_modules', pkg, 'bin', 'node') };
}

/** The path of Node 24's binary, installed with npm into the cache directory when it is not there yet. */
export function ensureNode24(env = process.env) {
  const { dir, pkg, bin } = node24Location(env);
  if (!existsSync(bin)) {
    mkdirSync(dir, { recursive: true });
    const spec = `${pkg}@${env.SVC_CODE_NODE24 || '24'}`;
    process.stderr.write(`installing ${spec} into ${dir}\n`);
    const r = spawnSync('npm', ['install', '--prefix', dir, '--no-save', '--no-audit', '--no-fund', '--no-package-lock', spec], { stdio: ['ignore', 'ignore', 'inherit'] });
    if (r.status !== 0 || !existsSync(bin)) throw new Error(`npm install ${spec} failed (status ${r.status})`);
  }
  const v = spawnSync(bin, ['--version'], { encoding: 'utf8' });
  if (v.status !== 0 || !/^v24\./.test(v.stdout)) throw new Error(`${bin} is not Node 24: ${v.stdout}${v.stderr}`);
  return bin;
}

/** Loads node-pty (a PTY that echoes) and classic-level (a put and a get) with `bin`; throws what failed. */
export function checkNatives(bin) {
  const pty = `const p = require('node-pty').spawn('/bin/sh', ['-c', 'echo pty-ok; sleep 1'], {}); let out = '';
    const timer = setTimeout(() => { console.error('node-pty: no output, got ' + JSON.stringify(out)); process.exit(1); }, 20000);
    p.onData((d) => { out += d; if (out.includes('pty-ok')) { clearTimeout(timer); p.kill(); process.exit(0); } });`;
  const level = `const { ClassicLevel } = require('classic-level'); const fs = require('node:fs'); const os = require('node:os');
    const dir = fs.mkdtempSync(require('node:path').join(os.tmpdir(), 'svc-code-n24-')); const db = new ClassicLevel(dir);
    db.put('k', 'v').then(() => db.get('k')).then((v) => db.close().then(() => { fs.rmSync(dir, { recursive: true, force: true });
    if (v !== 'v') { console.error('classic-level read ' + v); process.exit(1); } }));`;
  for (const [name, code] of [['node-pty', pty], ['classic-level', level]]) {
    const r = spawnSync(bin, ['-e', code], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
    if (r.status !== 0) throw new Error(`${name} does not load on ${bin}: ${r.stderr || r.error}`);
  }
}

/** The environment for a run on `bin`: its directory first on PATH, no loader inherited. */
export function envFor(bin, env = process.env) {
  const out = { ...env, PATH: `${path.dirname(bin)}${path.delimiter}${env.PATH ?? ''}` };
  delete out.NODE_OPTIONS;
  return out;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const [cmd, ...rest] = process.argv.slice(2);
  try {
    const bin = ensureNode24();
    if (cmd === '--check' || cmd === 'ava') checkNatives(bin);
    if (cmd === 'ava') {
      process.stderr.write(`ava ${rest.join(' ')} on ${spawnSync(bin, ['--version'], { encoding: 'utf8' }).stdout.trim()}\n`);
      const r = spawnSync(bin, [path.join(ROOT, 'node_modules/ava/entrypoints/cli.mjs'), ...rest], { cwd: ROOT, env: envFor(bin), stdio: 'inherit' });
      process.exit(r.status ?? 1);
    }
    process.stdout.write(`${bin}\n`);
  } catch (e) {
    process.stderr.write(`${e instanceof Error ? e.message : e}\n`);
    process.exit(1);
  }
}
