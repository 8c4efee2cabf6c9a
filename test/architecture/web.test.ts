import test from 'ava';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

// The web UI's sources (web/src): issue 27's size rule (no file over 400 lines, no function over 80), and what they
// may take from the server's folders: types from anywhere (protocol/ is where wire types come from), code only from
// the few modules that import nothing and run in a browser.
const ROOT = path.resolve(import.meta.dirname, '../../web/src');
const MAX_FILE = 400;
const MAX_FUNCTION = 80;

function sources(): string[] {
  return readdirSync(ROOT, { recursive: true, encoding: 'utf8' }).filter((f) => /\.tsx?$/.test(f)).map((f) => path.join(ROOT, f));
}

/** Every function of a file (declarations, arrows, methods) longer than the limit, as `file:line name (n lines)`. */
function longFunctions(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, file.endsWith('x') ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const out: string[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const start = sf.getLineAndCharacterOfPosition(node.getStart(sf)).line;
      const end = sf.getLineAndCharacterOfPosition(node.getEnd()).line;
      const lines = end - start + 1;
      const name = node.name?.getText(sf) ?? (ts.isVariableDeclaration(node.parent) ? node.parent.name.getText(sf) : '(anonymous)');
      if (lines > MAX_FUNCTION) out.push(`${path.relative(ROOT, file)}:${start + 1} ${name} (${lines} lines)`);
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return out;
}

test('no web/src function is over 80 lines', (t) => {
  const files = sources();
  t.true(files.length > 30, 'the scan sees web/src');
  t.deepEqual(files.flatMap(longFunctions), []);
});

test('no web/src file is over 400 lines', (t) => {
  const long = sources().map((f) => ({ f: path.relative(ROOT, f), n: readFileSync(f, 'utf8').split('\n').length })).filter((x) => x.n > MAX_FILE);
  t.deepEqual(long, []);
});

/** The server-side modules the web bundles (pure functions, no imports). */
const BUNDLED = new Set(['protocol/activity.ts', 'projections/file-history/line-ends.ts']);

/**
 * The server modules a web/src file takes code from (imports and `export ... from` re-exports alike; `type`-only ones
 * are counted apart), as `file -> target`: only BUNDLED ones may be there.
 */
export function serverImports(file: string, text: string, repo: string): { code: string[]; types: number } {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const code: string[] = [];
  let types = 0;
  for (const st of sf.statements) {
    const isImport = ts.isImportDeclaration(st);
    if (!isImport && !ts.isExportDeclaration(st)) continue;
    const spec = st.moduleSpecifier;
    if (!spec || !ts.isStringLiteral(spec) || !spec.text.startsWith('.')) continue;
    const target = path.relative(repo, path.resolve(path.dirname(file), spec.text));
    if (target.startsWith('web/')) continue;
    const typeOnly = isImport ? st.importClause?.isTypeOnly === true : st.isTypeOnly;
    if (typeOnly) types++;
    else if (!BUNDLED.has(target)) code.push(`${path.relative(ROOT, file)} -> ${target}`);
  }
  return { code, types };
}

test('web/src takes only types from the server folders, and code only from import-free modules', (t) => {
  const repo = path.resolve(ROOT, '../..');
  const bad: string[] = [];
  let typeImports = 0;
  for (const file of sources()) {
    const r = serverImports(file, readFileSync(file, 'utf8'), repo);
    bad.push(...r.code);
    typeImports += r.types;
  }
  t.deepEqual(bad, []);
  t.true(typeImports >= 4, 'the wire types come from protocol/');
  for (const m of BUNDLED) t.false(/^import /m.test(readFileSync(path.join(repo, m), 'utf8')), `${m} imports nothing`);
});

test('the import check sees re-exports: a planted `export ... from` of server code is reported, `export type` is not', (t) => {
  const repo = path.resolve(ROOT, '../..');
  const planted = path.resolve(import.meta.dirname, 'planted/web-reexport.ts');
  const r = serverImports(planted, readFileSync(planted, 'utf8'), repo);
  const from = path.relative(ROOT, planted);
  t.deepEqual(r.code, [`${from} -> protocol/ws/client-frames.ts`, `${from} -> protocol/codes.ts`]);
  t.is(r.types, 2);
});

test('web/ compiles without Node types and imports no node: module (web/src/server-types.d.ts only names one for types)', (t) => {
  const config = JSON.parse(readFileSync(path.resolve(ROOT, '../tsconfig.json'), 'utf8'));
  t.deepEqual(config.compilerOptions.types, [], 'no @types package, @types/node included, is visible to web code');
  const found = sources().filter((f) => /^\s*(import|export)\b[^;]*from\s+['"]node:/m.test(readFileSync(f, 'utf8')));
  t.deepEqual(found, []);
});
