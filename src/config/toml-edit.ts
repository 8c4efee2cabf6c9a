import { parse, stringify } from 'smol-toml';
import { isTable, type Doc } from './read.ts';
import { startsWith, TomlLayout, type Entry, type KeyPath, type Section } from './toml-layout.ts';
import { formatKey, formatPath, inlineValue, isTableArray, sameData } from './toml-value.ts';

/**
 * How a patch was written: `in-place` (only the keys that changed were touched), `tables`
 * (some top-level tables were rewritten whole, the rest of the file kept), `whole` (the
 * document was serialized anew: the text could not be mapped; comments are lost).
 */
export type PatchMode = 'in-place' | 'tables' | 'whole';

export interface TomlPatch {
  text: string;
  mode: PatchMode;
  /** Why the in-place edit was not used (for the log). */
  reason?: string;
}

/** An edit the patcher does not make in place; the caller falls back to a coarser rewrite. */
class Unsupported extends Error {}

/** New tables this deep or shallower get a `[section]`; deeper ones are written inline (`oauth = { ... }`). */
const SECTION_DEPTH = 2;

interface Edit {
  start: number;
  end: number;
  text: string;
  seq: number;
  /** Among inserts at one place, lower ranks go first (a root key before a section). */
  rank: number;
  /** Sections inserted at the very start: a blank line first when something was written before them. */
  spaced?: boolean;
}

type Home = { kind: 'section'; section: Section } | { kind: 'dotted'; after: Entry } | { kind: 'implicit' };

/**
 * Rewrites `text` (whose data is `before`) so that it holds `after`, changing only what
 * differs: a changed value is replaced where it is written, a removed key loses its line, a
 * new key goes after its table's last line, a new table gets a section after its siblings.
 * Comments, blank lines, key order, quoting and every untouched byte stay as they were.
 * The result is parsed back and compared with `after` before it is returned.
 */
export function patchToml(text: string, before: Doc, after: Doc): TomlPatch {
  if (sameData(before, after)) return { text, mode: 'in-place' };
  let layout: TomlLayout;
  try {
    layout = new TomlLayout(text);
  } catch (err) {
    return { text: stringify(after), mode: 'whole', reason: `the layout could not be read: ${(err as Error).message.split('\n')[0]}` };
  }
  const inPlace = attempt(layout, after, (ed) => ed.diffTable([], before, after));
  if (inPlace.text !== undefined) return { text: inPlace.text, mode: 'in-place' };
  // Fallback for an edit the patcher cannot make in place: the top-level tables that changed
  // are removed wherever they are written and written anew at the end; the rest is kept.
  const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].filter((k) => !sameData(before[k], after[k]));
  const tables = attempt(layout, after, (ed) => {
    for (const k of keys) ed.rewrite(k, before[k], after[k]);
  });
  if (tables.text !== undefined) return { text: tables.text, mode: 'tables', reason: inPlace.reason };
  return { text: stringify(after), mode: 'whole', reason: `${inPlace.reason}; then ${tables.reason}` };
}

function attempt(layout: TomlLayout, after: Doc, fn: (ed: Editor) => void): { text?: string; reason?: string } {
  const ed = new Editor(layout);
  let out: string;
  try {
    fn(ed);
    out = ed.apply();
  } catch (err) {
    return { reason: (err as Error).message };
  }
  let parsed: Doc;
  try {
    parsed = parse(out) as Doc;
  } catch (err) {
    return { reason: `the edited text does not parse: ${(err as Error).message.split('\n')[0]}` };
  }
  return sameData(parsed, after) ? { text: out } : { reason: 'the edited text does not read back as intended' };
}

const definedKeys = (t: Doc) => Object.keys(t).filter((k) => t[k] !== undefined).sort();

/** Indexes of `b` that `a` keeps, in order, when `a` is `b` with some elements left out. */
function keptIndexes(b: unknown[], a: unknown[]): number[] | undefined {
  const kept: number[] = [];
  for (let i = 0; i < b.length && kept.length < a.length; i++) if (sameData(b[i], a[kept.length])) kept.push(i);
  return kept.length === a.length ? kept : undefined;
}

class Editor {
  private readonly edits: Edit[] = [];
  /** Sections this patch removes, with where their removal starts (nothing is inserted inside a removal). */
  private readonly removed = new Map<Section, number>();
  private readonly nl: string;
  private readonly text: string;

  constructor(private readonly l: TomlLayout) {
    this.text = l.text;
    this.nl = l.text.includes('\r\n') ? '\r\n' : '\n';
  }

  private edit(start: number, end: number, text: string, rank = 0, spaced = false): void {
    this.edits.push({ start, end, text, seq: this.edits.length, rank, spaced });
  }

  diffTable(path: KeyPath, b: Doc, a: Doc): void {
    const own = this.l.entry(path);
    const keys = [...Object.keys(b), ...Object.keys(a).filter((k) => !Object.hasOwn(b, k))];
    if (own?.node.value.type === 'TOMLInlineTable' && definedKeys(b).join('\0') !== definedKeys(a).join('\0')) {
      // An inline table on one line that only gains keys gets them appended; any other change of its keys writes it anew.
      if (!this.appendToInline(own.node.value, b, a)) return this.set(own, a);
      for (const k of keys) if (b[k] !== undefined) this.diffKey(path, k, b[k], a[k]);
      return;
    }
    for (const k of keys) this.diffKey(path, k, b[k], a[k]);
  }

  private appendToInline(v: { body: { range: [number, number] }[]; range: [number, number] }, b: Doc, a: Doc): boolean {
    const last = v.body[v.body.length - 1];
    const added = Object.keys(a).filter((k) => b[k] === undefined && a[k] !== undefined);
    const removed = Object.keys(b).some((k) => b[k] !== undefined && a[k] === undefined);
    if (!last || removed || this.text.slice(v.range[0], v.range[1]).includes('\n')) return false;
    this.edit(last.range[1], last.range[1], added.map((k) => `, ${formatKey(k)} = ${inlineValue(a[k])}`).join(''));
    return true;
  }

  private diffKey(parent: KeyPath, key: string, bv: unknown, av: unknown): void {
    if (sameData(bv, av)) return;
    const path = [...parent, key];
    if (av === undefined) return this.remove(path);
    if (bv === undefined) return this.add(parent, key, av);
    if (isTable(bv) && isTable(av)) return this.diffTable(path, bv, av);
    if (Array.isArray(bv) && isTableArray(av) && this.l.section([...path, 0])?.kind === 'array') return this.diffTableArray(path, bv, av);
    const e = this.l.entry(path);
    if (e) return this.set(e, av, bv);
    // A table written as sections becomes a value of another kind.
    this.remove(path);
    this.add(parent, key, av);
  }

  private diffTableArray(path: KeyPath, b: unknown[], a: Doc[]): void {
    const kept = a.length < b.length ? keptIndexes(b, a) : undefined;
    if (kept) {
      b.forEach((_, i) => kept.includes(i) || this.remove([...path, i]));
      return;
    }
    const n = Math.min(b.length, a.length);
    for (let i = 0; i < n; i++) {
      const bi = b[i];
      if (!isTable(bi)) throw new Unsupported(`${formatPath(path)}: an array mixing tables and values`);
      this.diffTable([...path, i], bi, a[i]);
    }
    for (let i = n; i < b.length; i++) this.remove([...path, i]);
    if (a.length > b.length) {
      this.insertBlocks(this.afterSectionsUnder(path), a.slice(b.length).map((el) => this.arrayBlock(path, el)));
    }
  }

  /** Replaces the value of an existing key/value (a multi-line array that only grew keeps its lines and comments). */
  private set(e: Entry, value: unknown, old?: unknown): void {
    const v = e.node.value;
    const multiLine = v.type === 'TOMLArray' && this.text.slice(v.range[0], v.range[1]).includes('\n');
    if (multiLine && Array.isArray(value) && Array.isArray(old) && this.appendToArray(v as Extract<typeof v, { type: 'TOMLArray' }>, old, value)) return;
    const text = multiLine && Array.isArray(value) ? this.multiLineArray(e, v as Extract<typeof v, { type: 'TOMLArray' }>, value) : inlineValue(value);
    this.edit(v.range[0], v.range[1], text);
  }

  private appendToArray(v: { elements: { range: [number, number] }[]; range: [number, number] }, old: unknown[], value: unknown[]): boolean {
    const last = v.elements[v.elements.length - 1];
    if (!last || old.length !== v.elements.length || value.length <= old.length || !sameData(old, value.slice(0, old.length))) return false;
    const lineEnd = this.l.lineEnd(last.range[1]);
    if (v.range[1] <= lineEnd) return false; // the closing bracket shares the last element's line
    const trailingComma = /^[ \t]*,/.test(this.text.slice(last.range[1], lineEnd));
    const eol = lineEnd - (this.text.endsWith('\r\n', lineEnd) ? 2 : 1);
    const indent = this.l.indentAt(this.l.lineStart(last.range[0]));
    const added = value.slice(old.length).map((x) => inlineValue(x));
    if (!trailingComma) this.edit(last.range[1], last.range[1], ',');
    this.edit(eol, eol, added.map((x, i) => `${this.nl}${indent}${x}${trailingComma || i < added.length - 1 ? ',' : ''}`).join(''));
    return true;
  }

  private multiLineArray(e: Entry, v: { elements: { range: [number, number] }[] }, value: unknown[]): string {
    const base = this.l.indentAt(this.l.lineStart(e.node.range[0]));
    if (!value.length) return '[]';
    const first = v.elements[0];
    const indent = first ? this.l.indentAt(this.l.lineStart(first.range[0])) : `${base}  `;
    return `[${this.nl}${value.map((x) => `${indent}${inlineValue(x)},`).join(this.nl)}${this.nl}${base}]`;
  }

  /** Removes everything written under `path`: its sections (with the comments directly above them), its lines, its key/value. */
  private remove(path: KeyPath): void {
    const e = this.l.entry(path);
    if (e?.inline) throw new Unsupported(`${formatPath(path)} is written inside an inline value`);
    const sections = this.l.sectionsUnder(path);
    for (const s of sections) {
      const from = this.l.ownedFrom(s.start);
      this.removed.set(s, from);
      this.edit(from, s.next < this.text.length ? this.l.ownedFrom(s.next) : s.next, '');
    }
    const lines = this.l.linesUnder(path).filter((x) => !sections.includes(x.section));
    if (e && !sections.includes(e.section)) lines.push(e);
    for (const x of lines) this.edit(this.l.lineStart(x.node.range[0]), this.l.lineEnd(x.node.range[1]), '');
    if (!sections.length && !lines.length) throw new Unsupported(`${formatPath(path)}: not found in the text`);
  }

  private add(parent: KeyPath, key: string, value: unknown): void {
    const path = [...parent, key];
    const home = this.homeOf(parent);
    if (home.kind === 'dotted') return this.insertAfter(home.after, `${formatPath(path.slice(home.after.section.path.length))} = ${inlineValue(value)}`);
    if ((isTable(value) || isTableArray(value)) && path.length <= SECTION_DEPTH) return this.insertSections(parent, this.blocksOf(path, value));
    if (home.kind === 'implicit') return this.insertSections(parent, this.blocksOf(parent, { [key]: value }));
    this.insertInto(home.section, `${formatKey(key)} = ${inlineValue(value)}`);
  }

  /** Where the table at `parent` is written: a section, dotted keys in another section, or only through its subsections. */
  private homeOf(parent: KeyPath): Home {
    const section = parent.length ? this.l.section(parent) : this.l.sections[0];
    if (section) return { kind: 'section', section };
    if (this.l.entry(parent)) throw new Unsupported(`${formatPath(parent)} is an inline value`);
    const dotted = this.l.linesUnder(parent).filter((x) => x.section.path.length < parent.length && startsWith(parent, x.section.path));
    if (dotted.length) return { kind: 'dotted', after: dotted[dotted.length - 1] };
    if (this.l.sectionsUnder(parent).length) return { kind: 'implicit' };
    throw new Unsupported(`${formatPath(parent)}: not found in the text`);
  }

  /** Sections for a new table (or array of tables) at `path`: shallow subtables get their own, deeper ones are inline. */
  private blocksOf(path: KeyPath, value: unknown): string[] {
    if (isTableArray(value)) return value.map((el) => this.arrayBlock(path, el));
    const lines: string[] = [];
    const subs: [string, unknown][] = [];
    for (const [k, v] of Object.entries(value as Doc)) {
      if (v === undefined) continue;
      if ((isTable(v) || isTableArray(v)) && path.length < SECTION_DEPTH) subs.push([k, v]);
      else lines.push(`${formatKey(k)} = ${inlineValue(v)}`);
    }
    const own = lines.length || !subs.length ? [[`[${formatPath(path)}]`, ...lines].join(this.nl)] : [];
    return [...own, ...subs.flatMap(([k, v]) => this.blocksOf([...path, k], v))];
  }

  private arrayBlock(path: KeyPath, el: Doc): string {
    const lines = Object.entries(el).filter(([, v]) => v !== undefined).map(([k, v]) => `${formatKey(k)} = ${inlineValue(v)}`);
    return [`[[${formatPath(path)}]]`, ...lines].join(this.nl);
  }

  /** New sections go after the last section under `parent` (so a new provider joins the others), else at the end. */
  private insertSections(parent: KeyPath, blocks: string[]): void {
    this.insertBlocks(parent.length ? this.afterSectionsUnder(parent) : this.text.length, blocks);
  }

  /** After the last kept section under `path`; where the last removed one was when none is kept; else the end. */
  private afterSectionsUnder(path: KeyPath): number {
    const under = this.l.sectionsUnder(path);
    const kept = under.filter((s) => !this.removed.has(s));
    if (kept.length) return kept[kept.length - 1].bodyEnd;
    return under.length ? this.removed.get(under[under.length - 1])! : this.text.length;
  }

  private insertBlocks(pos: number, blocks: string[]): void {
    const nl = this.nl;
    const blankAbove = pos > 0 && this.text.slice(this.l.lineStart(pos - 1), pos).trim() === '';
    const before = pos === 0 || (blankAbove && this.text[pos - 1] === '\n' && pos > 1) ? '' : this.text[pos - 1] === '\n' ? nl : nl + nl;
    const after = pos < this.text.length && !/[\r\n]/.test(this.text[pos]) ? nl : '';
    this.edit(pos, pos, `${before}${blocks.join(nl + nl)}${nl}${after}`, 0, pos === 0);
  }

  /** A new line in a section's body, after its last key/value (or its header). */
  private insertInto(section: Section, line: string): void {
    const lines = this.l.linesOf(section);
    if (lines.length) return this.insertAfter(lines[lines.length - 1], line);
    if (section.kind !== 'root') return this.edit(section.headerEnd, section.headerEnd, `${this.text[section.headerEnd - 1] === '\n' ? '' : this.nl}${line}${this.nl}`);
    // The root has no key yet: before the first section (and the comments that belong to it).
    const first = this.l.sections[1];
    const pos = first ? this.l.ownedFrom(first.start) : this.text.length;
    const lead = pos > 0 && this.text[pos - 1] !== '\n' ? this.nl : '';
    this.edit(pos, pos, `${lead}${line}${this.nl}${first ? this.nl : ''}`, -1);
  }

  private insertAfter(e: Entry, line: string): void {
    const pos = this.l.lineEnd(e.node.range[1]);
    const lead = this.text[pos - 1] === '\n' ? '' : this.nl;
    this.edit(pos, pos, `${lead}${this.l.indentAt(this.l.lineStart(e.node.range[0]))}${line}${this.nl}`);
  }

  /** The fallback: the top-level `key` removed wherever it is written and written anew. */
  rewrite(key: string, before: unknown, after: unknown): void {
    if (before !== undefined) this.remove([key]);
    if (after !== undefined) this.add([], key, after);
  }

  /** The text with every edit made; overlapping edits are refused (the caller falls back). */
  apply(): string {
    const seen = new Set<string>();
    const edits = this.edits
      .filter((e) => !(e.text === '' && seen.has(`${e.start}:${e.end}`)) && seen.add(`${e.start}:${e.end}`))
      .sort((x, y) => x.start - y.start || (x.end - x.start) - (y.end - y.start) || x.rank - y.rank || x.seq - y.seq);
    let out = '';
    let pos = 0;
    for (const e of edits) {
      if (e.start < pos) throw new Unsupported('two edits overlap');
      out += this.text.slice(pos, e.start) + (e.spaced && out && !out.endsWith(`${this.nl}${this.nl}`) ? this.nl : '') + e.text;
      pos = e.end;
    }
    out += this.text.slice(pos);
    // A removal at the end of the file leaves the blank lines that separated it.
    return /\n[ \t]*\r?\n$/.test(this.text) ? out : out.replace(/(\r?\n)(?:[ \t]*\r?\n)+$/, '$1');
  }
}
