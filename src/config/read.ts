/** Typed reads from a hand-edited TOML document: a wrong type falls back to the default with a warning. */

export type Doc = Record<string, unknown>;

export function isTable(x: unknown): x is Doc {
  return typeof x === 'object' && x !== null && !Array.isArray(x) && !(x instanceof Date);
}

export class DocReader {
  readonly warnings: string[] = [];

  private wrong(path: string, expected: string): undefined {
    this.warnings.push(`config.toml: ${path} must be ${expected}; ignored`);
    return undefined;
  }

  table(doc: Doc, key: string, path = key): Doc {
    const t = doc[key];
    if (t === undefined) return {};
    return isTable(t) ? t : (this.wrong(path, 'a table'), {});
  }

  bool(doc: Doc, key: string, path: string): boolean | undefined {
    const x = doc[key];
    if (x === undefined || typeof x === 'boolean') return x;
    return this.wrong(path, 'a boolean');
  }

  int(doc: Doc, key: string, path: string, min = 0): number | undefined {
    const x = doc[key];
    if (x === undefined) return undefined;
    if (typeof x === 'number' && Number.isInteger(x) && x >= min) return x;
    return this.wrong(path, `an integer >= ${min}`);
  }

  str(doc: Doc, key: string, path: string): string | undefined {
    const x = doc[key];
    if (x === undefined || typeof x === 'string') return x;
    return this.wrong(path, 'a string');
  }

  pick<T extends string>(doc: Doc, key: string, path: string, allowed: readonly T[]): T | undefined {
    const x = doc[key];
    if (x === undefined) return undefined;
    if (typeof x === 'string' && (allowed as readonly string[]).includes(x)) return x as T;
    return this.wrong(path, `one of ${allowed.join(', ')}`);
  }

  strings(doc: Doc, key: string, path: string): string[] | undefined {
    const x = doc[key];
    if (x === undefined) return undefined;
    if (Array.isArray(x) && x.every((s) => typeof s === 'string')) return x as string[];
    return this.wrong(path, 'an array of strings');
  }

  tables(doc: Doc, key: string, path: string): Doc[] {
    const x = doc[key];
    if (x === undefined) return [];
    if (Array.isArray(x) && x.every(isTable)) return x as Doc[];
    return this.wrong(path, 'an array of tables') ?? [];
  }

  /** A table of tables (providers, models): non-table entries are dropped with a warning. */
  tableOfTables(doc: Doc, key: string): Record<string, Doc> {
    const out: Record<string, Doc> = {};
    for (const [id, t] of Object.entries(this.table(doc, key))) {
      if (isTable(t)) out[id] = t;
      else this.wrong(`${key}.${id}`, 'a table');
    }
    return out;
  }
}

/** Drops undefined fields so views and documents never carry them. */
export function compact<T extends Doc>(obj: T): T {
  return Object.fromEntries(Object.entries(obj).filter(([, x]) => x !== undefined)) as T;
}
