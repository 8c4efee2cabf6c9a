/** Longer lines are cut to this many characters in `text`, `before` and `after`. */
export const MAX_LINE_CHARS = 4096;

export interface GrepMatch {
  line: number;
  /** 1-based column in Unicode code points of the first match on the line. */
  col: number;
  text: string;
  before: string[];
  after: string[];
}

export interface GrepFile {
  path: string;
  matches: GrepMatch[];
}

export interface GrepLimits {
  maxFiles: number;
  maxMatchesPerFile: number;
  maxTotalMatches: number;
  contextLines: number;
}

/** ripgrep's `{text}` or `{bytes}` (base64, for non-UTF-8 data). */
interface RgData {
  text?: string;
  bytes?: string;
}

function decode(d: RgData | undefined): string {
  if (!d) return '';
  return d.text ?? Buffer.from(d.bytes ?? '', 'base64').toString('utf8');
}

function clean(line: string): string {
  const t = line.replace(/\r?\n$/, '');
  return t.length > MAX_LINE_CHARS ? t.slice(0, MAX_LINE_CHARS) : t;
}

/** Byte offset into a line -> 1-based code point column (of the line as decoded for `text`). */
function column(d: RgData | undefined, byteStart: number): number {
  if (byteStart === 0) return 1;
  const bytes = d?.text !== undefined ? Buffer.from(d.text, 'utf8') : Buffer.from(d?.bytes ?? '', 'base64');
  return [...bytes.subarray(0, byteStart).toString('utf8')].length + 1;
}

interface Pending {
  path: string;
  matches: { line: number; col: number }[];
  /** Every line seen in this file (matches and context), by line number. */
  lines: Map<number, string>;
}

/**
 * Folds ripgrep `--json` messages into result files and applies the limits.
 * One match per matching line (like `rg -m`); `before`/`after` are the
 * `context_lines` lines around it as they are in the file, so they may include
 * neighbouring matching lines. `feed` returns false once a limit is hit: the
 * caller stops ripgrep and the result is `truncated`.
 */
export class GrepCollector {
  readonly files: GrepFile[] = [];
  filesScanned = 0;
  sawSummary = false;
  truncated = false;
  private total = 0;
  private cur: Pending | null = null;

  constructor(private readonly limits: GrepLimits) {}

  feed(msg: { type: string; data: any }): boolean {
    switch (msg.type) {
      case 'begin':
        if (this.files.length >= this.limits.maxFiles) return this.stop();
        this.cur = { path: relPath(decode(msg.data.path)), matches: [], lines: new Map() };
        return true;
      case 'context':
        this.cur?.lines.set(msg.data.line_number, clean(decode(msg.data.lines)));
        return true;
      case 'match':
        return this.match(msg.data);
      case 'end':
        this.finish();
        this.filesScanned++;
        return true;
      case 'summary':
        this.sawSummary = true;
        this.filesScanned = msg.data.stats?.searches ?? this.filesScanned;
        return true;
      default:
        return true;
    }
  }

  /** Completes the file in progress (also when ripgrep was stopped mid-file). */
  finish(): void {
    const c = this.cur;
    this.cur = null;
    if (!c || !c.matches.length) return;
    const n = this.limits.contextLines;
    const around = (from: number, to: number) => {
      const out: string[] = [];
      for (let l = from; l <= to; l++) {
        const t = c.lines.get(l);
        if (t !== undefined) out.push(t);
      }
      return out;
    };
    this.files.push({
      path: c.path,
      matches: c.matches.map((m) => ({
        line: m.line, col: m.col, text: c.lines.get(m.line) ?? '',
        before: n ? around(Math.max(1, m.line - n), m.line - 1) : [],
        after: n ? around(m.line + 1, m.line + n) : [],
      })),
    });
  }

  private match(d: any): boolean {
    const c = this.cur;
    if (!c) return true;
    c.lines.set(d.line_number, clean(decode(d.lines)));
    // ripgrep runs with -m max+1, so a file with more matches than allowed shows up here.
    if (c.matches.length >= this.limits.maxMatchesPerFile) {
      this.truncated = true;
      return true;
    }
    if (this.total >= this.limits.maxTotalMatches) return this.stop();
    this.total++;
    c.matches.push({ line: d.line_number, col: column(d.lines, d.submatches?.[0]?.start ?? 0) });
    return true;
  }

  private stop(): boolean {
    this.truncated = true;
    this.finish();
    return false;
  }
}

/** ripgrep searches `.`, so its paths start with `./`. */
function relPath(p: string): string {
  return p.startsWith('./') ? p.slice(2) : p;
}
