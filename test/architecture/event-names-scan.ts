import ts from 'typescript';
import path from 'node:path';

/**
 * The scan behind test/architecture/event-names.test.ts: with the compiler's types, every place in the server's
 * sources that spells an event name must be one the compiler checks against a closed set of names (the registry's
 * `EventType` and its subsets), so renaming or removing an event in protocol/events breaks the build at every use.
 */

/** A dotted lowercase name, the shape of every event type (protocol/events/registry.ts `assertCoherent`). */
const DOTTED = /^[a-z_]+(\.[a-z_]+)+$/;
const EQUALITY = new Set([
  ts.SyntaxKind.EqualsEqualsEqualsToken, ts.SyntaxKind.ExclamationEqualsEqualsToken, ts.SyntaxKind.EqualsEqualsToken, ts.SyntaxKind.ExclamationEqualsToken,
]);
/** Methods whose argument is compared with a collection's members. */
const MEMBERSHIP = new Set(['has', 'includes', 'indexOf', 'get', 'delete']);

export interface Finding {
  file: string;
  line: number;
  name: string;
  why: string;
}

export interface ScanInput {
  root: string;
  /** Absolute paths of the files to check. */
  files: string[];
  /** The registry's names. */
  names: ReadonlySet<string>;
}

/** A union of string literal types only (undefined and null aside), or a type parameter constrained to one. */
function closed(checker: ts.TypeChecker, type: ts.Type | undefined): boolean {
  if (!type) return false;
  const t = type.flags & ts.TypeFlags.TypeParameter ? checker.getBaseConstraintOfType(type) : type;
  if (!t) return false;
  const parts = t.isUnion() ? t.types : [t];
  const nullish = ts.TypeFlags.Undefined | ts.TypeFlags.Null;
  return parts.some((p) => p.isStringLiteral()) && parts.every((p) => p.isStringLiteral() || (p.flags & nullish) !== 0);
}

/** The expression a literal is compared with (`===`, `case`, `.has(...)`), if it is compared. */
function comparedWith(n: ts.Node): ts.Expression | 'member' | undefined {
  const p = n.parent;
  if (ts.isBinaryExpression(p) && EQUALITY.has(p.operatorToken.kind)) return p.left === n ? p.right : p.left;
  if (ts.isCaseClause(p) && p.expression === n) return p.parent.parent.expression;
  if (ts.isCallExpression(p) && p.arguments[0] === n && ts.isPropertyAccessExpression(p.expression) && MEMBERSHIP.has(p.expression.name.text)) return 'member';
  return undefined;
}

/** A literal type (`PayloadOf<'turn.ended'>`, `EventTypes<'a.b' | 'c.d'>`) is checked when it is (in) the argument of a type parameter constrained to names. */
function typeArgumentChecked(checker: ts.TypeChecker, lit: ts.LiteralTypeNode): boolean {
  let arg: ts.TypeNode = lit;
  while (ts.isUnionTypeNode(arg.parent) || ts.isParenthesizedTypeNode(arg.parent)) arg = arg.parent;
  const ref = arg.parent;
  if (!ts.isTypeReferenceNode(ref) || !ref.typeArguments) return false;
  const i = ref.typeArguments.indexOf(arg);
  const symbol = checker.getSymbolAtLocation(ref.typeName);
  const decl = (symbol && symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol)?.declarations?.[0];
  const param = decl && (ts.isTypeAliasDeclaration(decl) || ts.isInterfaceDeclaration(decl)) ? decl.typeParameters?.[i] : undefined;
  return Boolean(param?.constraint && closed(checker, checker.getTypeFromTypeNode(param.constraint)));
}

/** An object key (`{ 'turn.ended': ... }`) is checked when the object's expected type lists its keys (no string index). */
function keyChecked(checker: ts.TypeChecker, obj: ts.ObjectLiteralExpression, name: string): boolean {
  const type = checker.getContextualType(obj);
  if (!type || type.flags & ts.TypeFlags.Any) return false;
  const parts = type.isUnion() ? type.types : [type];
  return parts.every((p) => !checker.getIndexInfoOfType(p, ts.IndexKind.String) && Boolean(checker.getPropertyOfType(p, name)));
}

/** Where a literal names an event in a definition: `defineEvent({ type: 'x.y', summary: '...' })` in protocol/events/. */
function inDefinition(n: ts.Node): boolean {
  for (let p: ts.Node | undefined = n.parent; p; p = p.parent) {
    if (ts.isCallExpression(p) && ts.isIdentifier(p.expression) && p.expression.text === 'defineEvent') return true;
  }
  return false;
}

/** Prose that mentions an event (`'... until ' + 'compaction.failed'`), not a name the code uses. */
function inProse(n: ts.Node): boolean {
  const p = n.parent;
  return ts.isBinaryExpression(p) && p.operatorToken.kind === ts.SyntaxKind.PlusToken;
}

/** Why a string literal that looks like an event name is not checked by the compiler, or undefined when it is. */
function verdict(checker: ts.TypeChecker, n: ts.StringLiteral | ts.NoSubstitutionTemplateLiteral, names: ReadonlySet<string>, families: ReadonlySet<string>): string | undefined {
  const registered = names.has(n.text);
  const compared = comparedWith(n);
  if (compared !== undefined) {
    const against = compared === 'member' ? checker.getContextualType(n) : checker.getTypeAtLocation(compared);
    if (closed(checker, against)) return undefined;
    return registered || families.has(n.text.split('.')[0]!) ? `compared with an untyped ${compared === 'member' ? 'member' : 'string'}` : undefined;
  }
  if (!registered || inProse(n)) return undefined;
  const p = n.parent;
  if (ts.isLiteralTypeNode(p)) return typeArgumentChecked(checker, p) ? undefined : 'a literal type outside a type argument constrained to EventType';
  if ((ts.isPropertyAssignment(p) || ts.isPropertySignature(p)) && p.name === n) {
    return ts.isObjectLiteralExpression(p.parent) && keyChecked(checker, p.parent, n.text) ? undefined : 'an object key the expected type does not list';
  }
  if (ts.isComputedPropertyName(p)) return 'a computed key';
  if (ts.isPropertyAssignment(p) && p.initializer === n && !(ts.isIdentifier(p.name) && p.name.text === 'type')) return 'a table entry: name the event where it is used';
  return closed(checker, checker.getContextualType(n)) ? undefined : 'where a plain string is expected';
}

/** Every literal in `files` that spells an event name where the compiler does not check it. */
export function scanEventNames({ root, files, names }: ScanInput): Finding[] {
  const cfg = ts.getParsedCommandLineOfConfigFile(path.join(root, 'tsconfig.json'), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: (d) => { throw new Error(String(d.messageText)); } });
  if (!cfg) throw new Error('tsconfig.json unreadable');
  const program = ts.createProgram(files, cfg.options);
  const checker = program.getTypeChecker();
  const families = new Set([...names].map((t) => t.split('.')[0]!));
  const wanted = new Set(files);
  const found: Finding[] = [];
  for (const sf of program.getSourceFiles()) {
    if (!wanted.has(sf.fileName)) continue;
    const visit = (n: ts.Node): void => {
      if ((ts.isStringLiteral(n) || ts.isNoSubstitutionTemplateLiteral(n)) && DOTTED.test(n.text) && !inDefinition(n)) {
        const why = verdict(checker, n, names, families);
        if (why) found.push({ file: path.relative(root, sf.fileName), line: sf.getLineAndCharacterOfPosition(n.getStart()).line + 1, name: n.text, why });
      }
      ts.forEachChild(n, visit);
    };
    visit(sf);
  }
  return found;
}
