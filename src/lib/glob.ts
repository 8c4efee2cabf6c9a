/**
 * Glob matching in time linear in the path (times the glob's length), for
 * globs a client supplies. picomatch compiles globs to backtracking regular
 * expressions: `*a*a*a*b` against a 255-character name, or `**\/a/**\/a/**\/b`
 * against a deep path, runs for seconds to hours on the event loop. Here a glob
 * becomes a small automaton simulated one character at a time.
 *
 * Syntax (picomatch's, with `dot: true`): `*` any run within a segment, `?` one
 * character but `/`, `[abc]` / `[a-z]` / `[!x]` / `[^x]` classes, `**` as a
 * whole segment any number of segments (`a/**` also matches `a`), `{a,b}`
 * alternatives (nested; at most MAX_ALTERNATIVES expansions), `\` escapes the
 * next character, a leading `!` negates. Dotfiles match like any name. Extglobs
 * (`@(..)`, `+(..)`, ...) are not supported and read literally. Unlike picomatch,
 * and like ripgrep and the shell, `[!x]` is a negated class.
 */

/** Expansions of `{a,b}` groups one glob may produce. */
export const MAX_ALTERNATIVES = 256;

export class GlobError extends Error {}

const DOT_SEGMENT = /(^|\/)\.{1,2}(\/|$)/;

type Token =
  | { t: 'lit'; c: string }
  | { t: 'any' }
  | { t: 'class'; neg: boolean; ranges: Array<[number, number]> }
  | { t: 'star' }
  /** `**\/` (or a leading `**\/`): nothing, or anything ending in `/`. */
  | { t: 'dirs' }
  /** A trailing `/**`: nothing, or `/` and anything. */
  | { t: 'rest' }
  /** A glob that is just `**`: anything. */
  | { t: 'all' };

/** `{a,b}` expansion, innermost groups first; an unmatched brace is literal. */
function expandBraces(glob: string, out: string[] = []): string[] {
  let depth = 0;
  let start = -1;
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === '\\') {
      i++;
      continue;
    }
    if (c === '{') {
      if (depth === 0) start = i;
      depth++;
    } else if (c === '}' && depth > 0 && --depth === 0) {
      const body = glob.slice(start + 1, i);
      const parts = splitTopLevel(body);
      if (parts.length < 2) continue;
      for (const p of parts) {
        expandBraces(glob.slice(0, start) + p + glob.slice(i + 1), out);
        if (out.length > MAX_ALTERNATIVES) throw new GlobError(`expands to more than ${MAX_ALTERNATIVES} alternatives`);
      }
      return out;
    }
  }
  out.push(glob);
  return out;
}

function splitTopLevel(body: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let from = 0;
  for (let i = 0; i < body.length; i++) {
    const c = body[i];
    if (c === '\\') i++;
    else if (c === '{') depth++;
    else if (c === '}') depth--;
    else if (c === ',' && depth === 0) {
      parts.push(body.slice(from, i));
      from = i + 1;
    }
  }
  parts.push(body.slice(from));
  return parts;
}

/** A `[...]` class starting at `i`; undefined when it is not closed (then `[` is literal). */
function readClass(g: string, i: number): { token: Token; end: number } | undefined {
  let j = i + 1;
  const neg = g[j] === '!' || g[j] === '^';
  if (neg) j++;
  const ranges: Array<[number, number]> = [];
  let first = true;
  for (; j < g.length; j++) {
    let c = g[j];
    if (c === ']' && !first) return { token: { t: 'class', neg, ranges }, end: j };
    first = false;
    if (c === '\\' && j + 1 < g.length) c = g[++j];
    const lo = c.codePointAt(0)!;
    if (g[j + 1] === '-' && j + 2 < g.length && g[j + 2] !== ']') {
      let hi = g[j + 2];
      j += 2;
      if (hi === '\\' && j + 1 < g.length) hi = g[++j];
      ranges.push([lo, hi.codePointAt(0)!]);
    } else {
      ranges.push([lo, lo]);
    }
  }
  return undefined;
}

function tokenize(g: string): Token[] {
  if (g === '**') return [{ t: 'all' }];
  const out: Token[] = [];
  for (let i = 0; i < g.length; i++) {
    const c = g[i];
    const segStart = i === 0 || g[i - 1] === '/';
    if (c === '*' && g[i + 1] === '*' && segStart && (i + 2 === g.length || g[i + 2] === '/')) {
      if (i + 2 === g.length) {
        // A trailing `/**`: the `/` before it goes with it (`a/**` also matches `a`).
        const last = out[out.length - 1];
        if (last?.t === 'lit' && last.c === '/') out.pop();
        out.push({ t: 'rest' });
        i += 1;
      } else {
        out.push({ t: 'dirs' });
        i += 2;
      }
      continue;
    }
    if (c === '*') {
      while (g[i + 1] === '*') i++;
      // A whole segment of `*` is at least one character (`*/*` does not match `a/`).
      if (segStart && (i + 1 === g.length || g[i + 1] === '/')) out.push({ t: 'any' });
      out.push({ t: 'star' });
    } else if (c === '?') out.push({ t: 'any' });
    else if (c === '[') {
      const cls = readClass(g, i);
      if (cls) {
        out.push(cls.token);
        i = cls.end;
      } else out.push({ t: 'lit', c });
    } else if (c === '\\' && i + 1 < g.length) out.push({ t: 'lit', c: g[++i] });
    else out.push({ t: 'lit', c });
  }
  return out;
}

function inClass(tok: Extract<Token, { t: 'class' }>, code: number): boolean {
  let hit = false;
  for (const [lo, hi] of tok.ranges) if (code >= lo && code <= hi) hit = true;
  return hit !== tok.neg;
}

/**
 * One compiled alternative: an automaton over token positions, simulated with
 * bit rows. `at[k]`: the next token to match is k (k = n: the end). `inside[k]`:
 * within the part a `dirs` (k) or `rest` (k) token is reading.
 */
function matcher(tokens: Token[]): (s: string) => boolean {
  const n = tokens.length;
  /** Tokens that may match nothing let the next one start at once. */
  const close = (at: Uint8Array) => {
    for (let k = 0; k < n; k++) {
      const t = tokens[k].t;
      if (at[k] && (t === 'star' || t === 'dirs' || t === 'rest' || t === 'all')) at[k + 1] = 1;
    }
  };
  return (s: string) => {
    let at = new Uint8Array(n + 1);
    let nextAt = new Uint8Array(n + 1);
    let inside = new Uint8Array(n + 1);
    let nextInside = new Uint8Array(n + 1);
    at[0] = 1;
    close(at);
    for (let i = 0; i < s.length; i++) {
      const ch = s[i];
      nextAt.fill(0);
      nextInside.fill(0);
      for (let k = 0; k < n; k++) {
        const tok = tokens[k];
        if (inside[k]) {
          // `dirs`: any character goes on, a `/` may end it; `rest`: anything goes on, to the end.
          nextInside[k] = 1;
          if (tok.t === 'dirs' && ch === '/') nextAt[k + 1] = 1;
        }
        if (!at[k]) continue;
        switch (tok.t) {
          case 'lit':
            if (tok.c === ch) nextAt[k + 1] = 1;
            break;
          case 'any':
            if (ch !== '/') nextAt[k + 1] = 1;
            break;
          case 'class':
            if (ch !== '/' && inClass(tok, s.charCodeAt(i))) nextAt[k + 1] = 1;
            break;
          case 'star':
            if (ch !== '/') nextAt[k] = 1;
            break;
          case 'dirs':
            if (ch === '/') nextAt[k + 1] = 1;
            nextInside[k] = 1;
            break;
          case 'rest':
            if (ch === '/') nextInside[k] = 1;
            break;
          case 'all':
            nextAt[k] = 1;
            break;
        }
      }
      close(nextAt);
      if (!nextAt.includes(1) && !nextInside.includes(1)) return false;
      [at, nextAt] = [nextAt, at];
      [inside, nextInside] = [nextInside, inside];
    }
    if (at[n]) return true;
    for (let k = 0; k < n; k++) if (inside[k] && tokens[k].t === 'rest') return true;
    return false;
  };
}

/**
 * Compiles a glob (GlobError when it expands to too many alternatives).
 * `basename`: match only the part after the last `/` (picomatch's option, used for globs without `/`).
 */
export function compileGlob(glob: string, opts: { basename?: boolean } = {}): (path: string) => boolean {
  const negated = glob.startsWith('!') && !glob.startsWith('!(');
  const body = (negated ? glob.slice(1) : glob).replace(/^\.\//, '');
  const alternatives = expandBraces(body);
  const tests = alternatives.map((g) => matcher(tokenize(g)));
  const slashEnd = body.endsWith('/');
  return (p: string) => {
    // A trailing `/` on the path is ignored (a directory written as `dir/`), unless the glob wants one.
    const path = !slashEnd && p.length > 1 && p.endsWith('/') ? p.slice(0, -1) : p;
    const s = opts.basename ? path.slice(path.lastIndexOf('/') + 1) : path;
    // `.` and `..` segments are matched only by themselves, never by a wildcard (as picomatch).
    const hit = DOT_SEGMENT.test(s) ? alternatives.includes(s) : tests.some((t) => t(s));
    return negated ? !hit : hit;
  };
}

/** `compileGlob(glob)(path)`, false for a glob that cannot be compiled (a configured rule that never applies). */
export function globMatches(glob: string, path: string): boolean {
  try {
    return compileGlob(glob)(path);
  } catch {
    return false;
  }
}

/**
 * `*` as "any characters, `/` included", everything else literal (Bash permission
 * patterns): the greedy two-pointer match, O(pattern x text) at worst, where a
 * regular expression of `.*` runs backtracks exponentially.
 */
export function wildcardMatch(pattern: string, text: string): boolean {
  let i = 0;
  let j = 0;
  let star = -1;
  let mark = 0;
  while (i < text.length) {
    if (j < pattern.length && pattern[j] === '*') {
      star = j++;
      mark = i;
    } else if (j < pattern.length && pattern[j] === text[i]) {
      i++;
      j++;
    } else if (star >= 0) {
      j = star + 1;
      i = ++mark;
    } else {
      return false;
    }
  }
  while (j < pattern.length && pattern[j] === '*') j++;
  return j === pattern.length;
}
