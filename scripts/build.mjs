#!/usr/bin/env node
// The build: TypeScript to dist/ (tsconfig.build.json), the non-TypeScript files of the compiled
// folders copied beside their output (a JSON snapshot read next to its module must be there when
// the module runs from dist/), the web UI (web/, Vite) to dist/web, then a stamp: a hash of what
// the build read.
//
//   node scripts/build.mjs             build (npm run build; npm ci runs it through `prepare`)
//   node scripts/build.mjs --if-stale  build only when the sources differ from the stamp (npm test; npm start
//                                      does the same in scripts/start.mjs)
//   node scripts/build.mjs --check     exit 1 when they differ, build nothing (test/smoke)
//
// The stamp hashes file contents, not modification times: a fresh clone or a `git checkout`
// rewrites every mtime without changing a byte, and must not cost a rebuild. Hashing the ~300
// source files takes about 10 ms.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const CONFIG = 'tsconfig.build.json';
const OUT = 'dist';
const STAMP = path.join(OUT, '.build-stamp.json');
/** What starting the daemon needs in dist/ besides the stamp. */
const ENTRY = path.join(OUT, 'src/cli/main.js');
/** The web UI's sources (Vite builds them to dist/web; docs/web-ui.md) and what the daemon serves from there. */
const WEB = 'web';
const WEB_ENTRY = path.join(OUT, 'web/index.html');
/** Extensions tsc compiles; every other file under the compiled folders is copied as is. */
const COMPILED = /\.(?:[cm]?ts|tsx)$/;

const here = (p) => path.join(ROOT, p);
const rel = (p) => path.relative(ROOT, p).split(path.sep).join('/');

/** The folders tsconfig.build.json compiles (its `include`). */
function includedFolders() {
  const config = JSON.parse(readFileSync(here(CONFIG), 'utf8'));
  return config.include;
}

/** Every file under the compiled folders, as sorted repo-relative paths. */
function sourceFiles() {
  const files = [];
  for (const folder of includedFolders()) {
    for (const e of readdirSync(here(folder), { recursive: true, withFileTypes: true })) {
      if (e.isFile()) files.push(rel(path.join(e.parentPath ?? e.path, e.name)));
    }
  }
  return files.sort();
}

/** Every file of the web UI's sources. */
function webFiles() {
  return readdirSync(here(WEB), { recursive: true, withFileTypes: true })
    // Not the config Vite bundles to a temp file beside itself while it builds.
    .filter((e) => e.isFile() && !e.name.includes('.timestamp-'))
    .map((e) => rel(path.join(e.parentPath ?? e.path, e.name)))
    .sort();
}

/** Hash of everything the output depends on: sources and assets, the tsconfigs, this script, the compiler version and the package's module type. */
export function sourcesHash() {
  const hash = createHash('sha256');
  const add = (label, data) => hash.update(`${label}\0${data.length}\0`).update(data);
  for (const f of [...sourceFiles(), ...webFiles(), 'tsconfig.json', CONFIG, 'scripts/build.mjs']) add(f, readFileSync(here(f)));
  const require = createRequire(import.meta.url);
  const ts = require('typescript/package.json').version;
  const vite = require('vite/package.json').version;
  const preact = require('preact/package.json').version;
  const { type } = JSON.parse(readFileSync(here('package.json'), 'utf8'));
  add('env', Buffer.from(JSON.stringify({ ts, vite, preact, type })));
  return hash.digest('hex');
}

/** Why dist/ is not what the sources build to, or null when it is. */
export function staleReason() {
  if (!existsSync(here(ENTRY))) return `${ENTRY} is missing`;
  if (!existsSync(here(WEB_ENTRY))) return `${WEB_ENTRY} is missing`;
  let stamp;
  try {
    stamp = JSON.parse(readFileSync(here(STAMP), 'utf8'));
  } catch {
    return `${STAMP} is missing`;
  }
  return stamp.sources === sourcesHash() ? null : 'the sources changed since the last build';
}

function copyAssets() {
  let copied = 0;
  for (const f of sourceFiles()) {
    if (COMPILED.test(f)) continue;
    mkdirSync(path.dirname(here(path.join(OUT, f))), { recursive: true });
    copyFileSync(here(f), here(path.join(OUT, f)));
    copied++;
  }
  return copied;
}

export function build() {
  // Hashed first: a source edited while tsc runs leaves a stamp that no longer matches, so the next start builds again.
  const sources = sourcesHash();
  rmSync(here(STAMP), { force: true });
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  const r = spawnSync(process.execPath, [tsc, '-p', CONFIG], { cwd: ROOT, stdio: 'inherit' });
  if (r.status !== 0) return r.status ?? 1;
  copyAssets();
  const vite = path.join(path.dirname(createRequire(import.meta.url).resolve('vite/package.json')), 'bin/vite.js');
  const w = spawnSync(process.execPath, [vite, 'build', '--config', path.join(WEB, 'vite.config.ts')], { cwd: ROOT, stdio: 'inherit' });
  if (w.status !== 0) return w.status ?? 1;
  writeFileSync(here(STAMP), `${JSON.stringify({ sources, built_at: new Date().toISOString() })}\n`);
  return 0;
}

function main(args) {
  if (args.includes('--check')) {
    const why = staleReason();
    if (why) process.stderr.write(`dist/ is stale: ${why} (npm run build)\n`);
    return why ? 1 : 0;
  }
  if (args.includes('--if-stale')) {
    const why = staleReason();
    if (!why) return 0;
    process.stderr.write(`svc-code: building dist/ first: ${why}\n`);
  }
  return build();
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.exitCode = main(process.argv.slice(2));
}
