import path from 'node:path';
import mime from 'mime-types';

/** How much of a file is sniffed to tell text from binary. */
export const SNIFF_BYTES = 8192;

/** Character sets a text file can be decoded from (WHATWG labels). */
export type Charset = 'utf-8' | 'utf-16le' | 'utf-16be' | 'windows-1252';

export interface Sniff {
  binary: boolean;
  /** Set for text files. */
  charset?: Charset;
}

const LANGUAGE_BY_EXT: Record<string, string> = {
  ts: 'typescript', mts: 'typescript', cts: 'typescript', tsx: 'typescriptreact',
  js: 'javascript', mjs: 'javascript', cjs: 'javascript', jsx: 'javascriptreact',
  json: 'json', jsonc: 'jsonc', md: 'markdown', markdown: 'markdown', mdx: 'mdx',
  py: 'python', pyi: 'python', go: 'go', rs: 'rust', java: 'java', kt: 'kotlin', kts: 'kotlin',
  scala: 'scala', swift: 'swift', rb: 'ruby', php: 'php', cs: 'csharp', fs: 'fsharp',
  c: 'c', h: 'c', cc: 'cpp', cpp: 'cpp', cxx: 'cpp', hpp: 'cpp', hh: 'cpp', hxx: 'cpp', m: 'objective-c',
  css: 'css', scss: 'scss', sass: 'sass', less: 'less', html: 'html', htm: 'html', vue: 'vue', svelte: 'svelte',
  xml: 'xml', svg: 'xml', yaml: 'yaml', yml: 'yaml', toml: 'toml', ini: 'ini', cfg: 'ini',
  sh: 'shellscript', bash: 'shellscript', zsh: 'shellscript', fish: 'fish', ps1: 'powershell',
  sql: 'sql', lua: 'lua', pl: 'perl', r: 'r', dart: 'dart', ex: 'elixir', exs: 'elixir', erl: 'erlang',
  hs: 'haskell', clj: 'clojure', zig: 'zig', nim: 'nim', proto: 'proto', graphql: 'graphql', gql: 'graphql',
  tf: 'terraform', txt: 'plaintext', log: 'plaintext', csv: 'csv', diff: 'diff', patch: 'diff',
};

const LANGUAGE_BY_NAME: Record<string, string> = {
  dockerfile: 'dockerfile', makefile: 'makefile', gnumakefile: 'makefile', cmakelists: 'cmake',
  '.gitignore': 'ignore', '.dockerignore': 'ignore', '.bashrc': 'shellscript', '.zshrc': 'shellscript',
};

const BINARY_EXTS = new Set([
  'png', 'jpg', 'jpeg', 'gif', 'bmp', 'ico', 'webp', 'avif', 'tif', 'tiff', 'psd', 'heic',
  'pdf', 'zip', 'gz', 'tgz', 'bz2', 'xz', 'zst', '7z', 'rar', 'tar', 'jar', 'war', 'whl',
  'exe', 'dll', 'so', 'dylib', 'o', 'a', 'lib', 'obj', 'class', 'pyc', 'wasm', 'node', 'bin', 'dat',
  'mp3', 'mp4', 'm4a', 'wav', 'flac', 'ogg', 'webm', 'mov', 'avi', 'mkv',
  'ttf', 'otf', 'woff', 'woff2', 'eot', 'sqlite', 'db', 'doc', 'docx', 'xls', 'xlsx', 'ppt', 'pptx',
]);

function ext(name: string): string {
  return path.extname(name).slice(1).toLowerCase();
}

/** Editor language id from the file name (extension, or well-known names like Dockerfile). */
export function languageIdFor(name: string): string | undefined {
  const lower = name.toLowerCase();
  return LANGUAGE_BY_NAME[lower] ?? LANGUAGE_BY_NAME[lower.split('.')[0]] ?? LANGUAGE_BY_EXT[ext(name)];
}

/**
 * Binary-ness guessed from the name alone (no I/O): true for known binary
 * formats, false for known text/source formats, undefined when unsure.
 */
export function binaryByName(name: string): boolean | undefined {
  const e = ext(name);
  if (BINARY_EXTS.has(e)) return true;
  if (languageIdFor(name) !== undefined) return false;
  const type = mime.lookup(name);
  if (type && (type.startsWith('text/') || type.endsWith('+xml') || type.endsWith('json'))) return false;
  return undefined;
}

/** Source extensions mime-db maps to something else (`.ts` is MPEG transport stream there, `.rs` an XML format). */
const SOURCE_MIME: Record<string, string> = {
  ts: 'text/typescript', mts: 'text/typescript', cts: 'text/typescript', tsx: 'text/tsx', rs: 'text/rust', m: 'text/x-objectivec',
};

/** MIME type from the name: source files are text/*; undefined when the extension is unknown. */
export function mimeByName(name: string): string | undefined {
  const source = SOURCE_MIME[ext(name)];
  if (source) return source;
  return mime.lookup(name) || (languageIdFor(name) ? 'text/plain' : undefined);
}

/** MIME type for a sniffed file: by name, else a generic text or binary type. */
export function mimeFor(name: string, binary: boolean): string {
  return mimeByName(name) ?? (binary ? 'application/octet-stream' : 'text/plain');
}

function isControl(b: number): boolean {
  // C0 controls other than tab, LF, VT, FF, CR and ESC (ANSI colour codes in logs).
  return b < 0x20 && b !== 0x09 && b !== 0x0a && b !== 0x0b && b !== 0x0c && b !== 0x0d && b !== 0x1b;
}

/**
 * Tells text from binary on the first bytes of a file: a UTF-16 BOM means text;
 * a NUL byte means binary; valid UTF-8 means text; otherwise text in
 * windows-1252 (latin1) unless more than 10% of the bytes are control codes.
 */
export function sniff(head: Buffer): Sniff {
  if (head.length >= 2 && head[0] === 0xff && head[1] === 0xfe) return { binary: false, charset: 'utf-16le' };
  if (head.length >= 2 && head[0] === 0xfe && head[1] === 0xff) return { binary: false, charset: 'utf-16be' };
  if (head.includes(0)) return { binary: true };
  try {
    // stream:true tolerates a multi-byte sequence cut at the end of the sniffed window.
    new TextDecoder('utf-8', { fatal: true }).decode(head, { stream: true });
    return { binary: false, charset: 'utf-8' };
  } catch {
    let controls = 0;
    for (const b of head) if (isControl(b)) controls++;
    return controls > head.length / 10 ? { binary: true } : { binary: false, charset: 'windows-1252' };
  }
}

/** Decodes bytes of a text file to a JS string (a UTF-8 or UTF-16 BOM at the start is dropped). */
export function decode(bytes: Buffer, charset: Charset): string {
  return new TextDecoder(charset).decode(bytes);
}

/** Lines of a whole text file: newlines, plus one for a last line without a newline. */
export function countLines(whole: Buffer, charset: Charset): number {
  if (whole.length === 0) return 0;
  if (charset === 'utf-8' || charset === 'windows-1252') {
    let n = 0;
    for (let i = whole.indexOf(0x0a); i >= 0; i = whole.indexOf(0x0a, i + 1)) n++;
    return whole[whole.length - 1] === 0x0a ? n : n + 1;
  }
  const text = decode(whole, charset);
  if (!text) return 0;
  const n = text.split('\n').length;
  return text.endsWith('\n') ? n - 1 : n;
}
