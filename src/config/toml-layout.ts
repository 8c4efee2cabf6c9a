import { parseTOML, type AST } from 'toml-eslint-parser';

/** A key path in the data model: table keys, and array indexes for arrays of tables. */
export type KeyPath = (string | number)[];

/** One `[table]` / `[[array]]` section of the file, or the root (the key/values before the first header). */
export interface Section {
  path: KeyPath;
  kind: 'root' | 'standard' | 'array';
  /** Start of the header line (0 for the root). */
  start: number;
  /** End of the header line, its newline included (0 for the root). */
  headerEnd: number;
  /** End of the section's last line of content (its last key/value, or its header), newline included. */
  bodyEnd: number;
  /** Start of the next section's header line, or the end of the text. */
  next: number;
}

/** One key/value of the file, wherever it is written. */
export interface Entry {
  node: AST.TOMLKeyValue;
  /** The full path of the value in the data model. */
  path: KeyPath;
  /** The section whose body holds the line (for entries inside inline tables, the section of the outermost key/value). */
  section: Section;
  /** Written inside an inline table (or an inline table inside an array): no line of its own. */
  inline: boolean;
}

const keyOf = (k: AST.TOMLKey): string[] => k.keys.map((p) => (p.type === 'TOMLBare' ? p.name : p.value));
const id = (path: KeyPath): string => JSON.stringify(path);

/** Whether `path` starts with `prefix` (a path is a prefix of itself). */
export function startsWith(path: KeyPath, prefix: KeyPath): boolean {
  return prefix.length <= path.length && prefix.every((k, i) => path[i] === k);
}

/**
 * Where every table and key/value of a TOML text is written: the structure the patcher edits
 * in place. Built from toml-eslint-parser's tree (positions of every node and comment); the
 * values themselves are read with smol-toml elsewhere.
 */
export class TomlLayout {
  readonly sections: Section[] = [];
  readonly entries: Entry[] = [];
  private readonly bySection = new Map<string, Section>();
  private readonly byEntry = new Map<string, Entry>();
  /** Offsets where a comment starts (so a line of a multi-line string that begins with `#` is not taken for one). */
  private readonly commentStarts: Set<number>;

  constructor(readonly text: string) {
    const ast = parseTOML(text, { tomlVersion: '1.1' });
    this.commentStarts = new Set(ast.comments.map((c) => c.range[0]));
    const top = ast.body[0];
    const root: Section = { path: [], kind: 'root', start: 0, headerEnd: 0, bodyEnd: 0, next: text.length };
    this.sections.push(root);
    let current = root;
    for (const node of top.body) {
      if (node.type === 'TOMLTable') {
        const start = this.lineStart(node.range[0]);
        current.next = start;
        current = {
          path: node.resolvedKey, kind: node.kind, start, headerEnd: this.lineEnd(node.key.range[1]), bodyEnd: this.lineEnd(node.range[1]), next: text.length,
        };
        this.sections.push(current);
        this.bySection.set(id(current.path), current);
        for (const kv of node.body) this.addEntry(kv, current.path, current, false);
      } else {
        root.bodyEnd = Math.max(root.bodyEnd, this.lineEnd(node.range[1]));
        this.addEntry(node, [], root, false);
      }
    }
  }

  private addEntry(kv: AST.TOMLKeyValue, base: KeyPath, section: Section, inline: boolean): void {
    const path = [...base, ...keyOf(kv.key)];
    const e: Entry = { node: kv, path, section, inline };
    this.entries.push(e);
    this.byEntry.set(id(path), e);
    this.addValue(kv.value, path, section);
  }

  private addValue(value: AST.TOMLContentNode, path: KeyPath, section: Section): void {
    if (value.type === 'TOMLInlineTable') for (const kv of value.body) this.addEntry(kv, path, section, true);
    else if (value.type === 'TOMLArray') value.elements.forEach((el, i) => this.addValue(el, [...path, i], section));
  }

  /** The section whose header names exactly `path`. */
  section(path: KeyPath): Section | undefined {
    return this.bySection.get(id(path));
  }

  /** The key/value that writes exactly `path`. */
  entry(path: KeyPath): Entry | undefined {
    return this.byEntry.get(id(path));
  }

  /** Sections at or under `path`, in file order. */
  sectionsUnder(path: KeyPath): Section[] {
    return this.sections.filter((s) => s.kind !== 'root' && startsWith(s.path, path));
  }

  /** Key/values with a line of their own strictly under `path` (dotted keys), in file order. */
  linesUnder(path: KeyPath): Entry[] {
    return this.entries.filter((e) => !e.inline && e.path.length > path.length && startsWith(e.path, path));
  }

  /** Key/values with a line of their own in `section`'s body, in file order. */
  linesOf(section: Section): Entry[] {
    return this.entries.filter((e) => !e.inline && e.section === section);
  }

  lineStart(pos: number): number {
    return this.text.lastIndexOf('\n', pos - 1) + 1;
  }

  /** End of the line holding `pos`, its newline included. */
  lineEnd(pos: number): number {
    const i = this.text.indexOf('\n', pos);
    return i < 0 ? this.text.length : i + 1;
  }

  /** The whitespace a line starts with. */
  indentAt(lineStart: number): string {
    return /^[ \t]*/.exec(this.text.slice(lineStart))![0];
  }

  private isCommentLine(lineStart: number): boolean {
    return this.commentStarts.has(lineStart + this.indentAt(lineStart).length);
  }

  /**
   * Start of the comment lines directly above the line at `lineStart` (no blank line between):
   * they describe it and go with it when it is removed. A block that opens the file is the
   * file's own header and stays.
   */
  ownedFrom(lineStart: number): number {
    let start = lineStart;
    while (start > 0) {
      const prev = this.lineStart(start - 1);
      if (!this.isCommentLine(prev)) break;
      start = prev;
    }
    return start === 0 ? lineStart : start;
  }
}
