import test from 'ava';
import { parse } from 'smol-toml';
import type { Doc } from '../../src/config/read.ts';
import { patchToml, type PatchMode } from '../../src/config/toml-edit.ts';
import { TomlLayout, type KeyPath } from '../../src/config/toml-layout.ts';
import { sameData } from '../../src/config/toml-value.ts';

const clone = <T>(x: T): T => structuredClone(x);

/** Patches `text` with `edit` applied to its data; checks the result reads back as the intended data. */
function patched(t: import('ava').ExecutionContext, text: string, edit: (d: any) => void, mode: PatchMode = 'in-place'): string {
  const before = parse(text) as Doc;
  const after = clone(before);
  edit(after);
  const r = patchToml(text, parse(text) as Doc, after);
  t.is(r.mode, mode, r.reason);
  t.true(sameData(parse(r.text), after), `reads back as intended:\n${r.text}`);
  return r.text;
}

const cases: [string, string, (d: any) => void, string][] = [
  ['a changed value keeps its trailing comment and every other line',
    '# head\n\ndefault_model = "fast" # mine\nmy_key = \'lit\'\n\n[loop_control]\n# c\nmax_attempts_per_step = 3\n',
    (d) => { d.default_model = 'slow'; },
    '# head\n\ndefault_model = "slow" # mine\nmy_key = \'lit\'\n\n[loop_control]\n# c\nmax_attempts_per_step = 3\n'],
  ['a new key goes after its table\'s last line',
    'a = 1\n\n[loop_control]\nmax_attempts_per_step = 3 # keep\n\n[thinking]\nenabled = true\n',
    (d) => { d.loop_control.compaction_max_attempts = 7; },
    'a = 1\n\n[loop_control]\nmax_attempts_per_step = 3 # keep\ncompaction_max_attempts = 7\n\n[thinking]\nenabled = true\n'],
  ['a new root key goes after the root\'s last key, before the first section',
    'a = 1\n\n[loop_control]\nx = 3\n', (d) => { d.telemetry = false; }, 'a = 1\ntelemetry = false\n\n[loop_control]\nx = 3\n'],
  ['a root key when the root has none: before the first section, after the file\'s head comment',
    '# my config\n\n# about t\n[t]\nx = 1\n', (d) => { d.telemetry = false; }, '# my config\n\ntelemetry = false\n\n# about t\n[t]\nx = 1\n'],
  ['a new table is a section at the end', 'a = 1\n# end comment\n', (d) => { d.thinking = { effort: 'high' }; }, 'a = 1\n# end comment\n\n[thinking]\neffort = "high"\n'],
  ['a new provider and model join their siblings; deeper tables are inline',
    '[providers.acme]\ntype = "chat_compat"\n\n[models.fast]\nprovider = "acme"\nmax_context_size = 10\n\n[thinking]\nenabled = true\n',
    (d) => {
      d.providers.b = { type: 'svc', oauth: { storage: 'file', key: 'b' } };
      d.models['b/m1'] = { provider: 'b', max_context_size: 5, capabilities: ['thinking'] };
    },
    '[providers.acme]\ntype = "chat_compat"\n\n[providers.b]\ntype = "svc"\noauth = { storage = "file", key = "b" }\n\n[models.fast]\nprovider = "acme"\nmax_context_size = 10\n\n'
      + '[models."b/m1"]\nprovider = "b"\nmax_context_size = 5\ncapabilities = [ "thinking" ]\n\n[thinking]\nenabled = true\n'],
  ['a removed key loses its line (and only it)', 'a = 1 # c\n# about b\nb = 2\n\n[t]\nx = 1\ny = 2\n',
    (d) => { delete d.b; delete d.t.x; }, 'a = 1 # c\n# about b\n\n[t]\ny = 2\n'],
  ['a removed table takes its comments; the next table keeps its own',
    'a = 1\n\n# about t\n[t]\nx = 1\n# trailing note of t\n\n# about u\n[u]\ny = 2\n', (d) => { delete d.t; }, 'a = 1\n\n# about u\n[u]\ny = 2\n'],
  ['a removed last table leaves no blank tail', 'a = 1\n\n[t]\nx = 1\n', (d) => { delete d.t; }, 'a = 1\n'],
  ['a table removed with its subtables, wherever they are', '[p.a]\nx = 1\n\n[q]\nz = 1\n\n[p.a.sub]\ny = 2\n\n[p.b]\nw = 1\n',
    (d) => { delete d.p.a; }, '[q]\nz = 1\n\n[p.b]\nw = 1\n'],
  ['a refresh that drops the last model and adds one: the new one takes the place of the removed one, comments kept',
    '[models.a]\n# mine\nx = 1\n\n[models.b]\nx = 2\n\n# about z\n[z]\nq = 1\n',
    (d) => { d.models = { a: { x: 3 }, c: { x: 4 } }; },
    '[models.a]\n# mine\nx = 3\n\n[models.c]\nx = 4\n\n# about z\n[z]\nq = 1\n'],
  ['every section of a table removed and others added: they go where the removed ones were',
    'k = 1\n\n[models.a]\nx = 1\n\n[z]\nq = 1\n', (d) => { d.models = { c: { x: 4 } }; }, 'k = 1\n\n[models.c]\nx = 4\n\n[z]\nq = 1\n'],
  ['dotted keys: edited and added next to their siblings', 'thinking.enabled = true\nthinking.effort = "low"\nx = 1\n',
    (d) => { d.thinking.effort = 'high'; d.thinking.keep = 'none'; }, 'thinking.enabled = true\nthinking.effort = "high"\nthinking.keep = "none"\nx = 1\n'],
  ['dotted keys inside a section', '[providers]\nacme.type = "x"\nacme.base_url = "u"\n\n[z]\nq = 1\n',
    (d) => { d.providers.acme.api_key = 'k'; delete d.providers.acme.base_url; }, '[providers]\nacme.type = "x"\nacme.api_key = "k"\n\n[z]\nq = 1\n'],
  ['an inline table: a value changed in place, a key appended', '[providers.acme]\ncustom_headers = { "X-Org" = "a", b = "c" } # h\n',
    (d) => { d.providers.acme.custom_headers.b = 'z'; d.providers.acme.custom_headers.n = 'new'; },
    '[providers.acme]\ncustom_headers = { "X-Org" = "a", b = "z", n = "new" } # h\n'],
  ['an inline table losing a key is written anew', 'h = { a = 1, b = 2 } # h\n', (d) => { delete d.h.a; }, 'h = { b = 2 } # h\n'],
  ['arrays of tables: a key added to the second element, a section table edited',
    '[[permission.rules]]\ndecision = "allow" # first\npattern = "Read"\n\n[[permission.rules]]\ndecision = "deny"\npattern = "Bash(rm *)"\n\n[permission]\ndangerous_command_guard = true\n',
    (d) => { d.permission.rules[1].reason = 'no'; d.permission.dangerous_command_guard = false; },
    '[[permission.rules]]\ndecision = "allow" # first\npattern = "Read"\n\n[[permission.rules]]\ndecision = "deny"\npattern = "Bash(rm *)"\nreason = "no"\n\n[permission]\ndangerous_command_guard = false\n'],
  ['arrays of tables: an element appended after the last', '[[permission.rules]]\ndecision = "allow"\npattern = "Read"\n\n[other]\nx = 1\n',
    (d) => { d.permission.rules.push({ decision: 'deny', pattern: 'Write' }); },
    '[[permission.rules]]\ndecision = "allow"\npattern = "Read"\n\n[[permission.rules]]\ndecision = "deny"\npattern = "Write"\n\n[other]\nx = 1\n'],
  ['arrays of tables: the first element removed, the second kept with its comment',
    '[[permission.rules]]\ndecision = "allow"\npattern = "A"\n\n# the deny rule\n[[permission.rules]]\ndecision = "deny"\npattern = "B"\n',
    (d) => { d.permission.rules.splice(0, 1); }, '# the deny rule\n[[permission.rules]]\ndecision = "deny"\npattern = "B"\n'],
  ['a new array of tables gets [[sections]]', 'x = 1\n', (d) => { d.permission = { rules: [{ decision: 'ask', pattern: 'Bash' }] }; },
    'x = 1\n\n[[permission.rules]]\ndecision = "ask"\npattern = "Bash"\n'],
  ['multi-line strings are left alone; a multi-line array that grows keeps its comments',
    's = """\n# not a comment\nline2"""\narr = [\n  "a", # one\n  "b",\n]\nz = 1\n', (d) => { d.z = 2; d.arr.push('c'); },
    's = """\n# not a comment\nline2"""\narr = [\n  "a", # one\n  "b",\n  "c",\n]\nz = 2\n'],
  ['a multi-line array without a trailing comma grows', 'arr = [\n  "a",\n  "b" # two\n]\n', (d) => { d.arr.push('c', 'd'); },
    'arr = [\n  "a",\n  "b", # two\n  "c",\n  "d"\n]\n'],
  ['a multi-line array that shrinks stays multi-line', 'arr = [\n    "a",\n    "b",\n]\n', (d) => { d.arr = ['b']; }, 'arr = [\n    "b",\n]\n'],
  ['quoted keys and keys with dots', '[models."acme/fast"]\nmax_context_size = 1\n',
    (d) => { d.models['acme/fast'].max_context_size = 2; d.models['acme/new.x'] = { max_context_size: 3 }; },
    '[models."acme/fast"]\nmax_context_size = 2\n\n[models."acme/new.x"]\nmax_context_size = 3\n'],
  ['CRLF line endings are kept', 'a = 1\r\n# c\r\n[t]\r\nx = 1\r\n', (d) => { d.t.y = 2; d.u = { z: 1 }; }, 'a = 1\r\n# c\r\n[t]\r\nx = 1\r\ny = 2\r\n\r\n[u]\r\nz = 1\r\n'],
  ['no newline at the end', 'a = 1\n[t]\nx = 1', (d) => { d.t.x = 5; d.t.y = 6; }, 'a = 1\n[t]\nx = 5\ny = 6\n'],
  ['a scalar added to a table known only through its subtables', '[providers.acme.env]\nK = "v"\n', (d) => { d.providers.acme.type = 'svc'; },
    '[providers.acme.env]\nK = "v"\n\n[providers.acme]\ntype = "svc"\n'],
  ['a value that becomes a table is written inline', 'a = 1\nb = "x"\n', (d) => { d.b = { c: 1 }; }, 'a = 1\nb = { c = 1 }\n'],
  ['a table written as a section that becomes a value', 'a = 1\n\n[b]\nc = 1\n', (d) => { d.b = 'flat'; }, 'a = 1\nb = "flat"\n'],
  ['literal strings, dates, floats and big integers untouched', "name = 'C:\\path'\nd = 1979-05-27T07:32:00Z\nf = 1.50\nbig = 9007199254740991\nx = 1\n",
    (d) => { d.x = 3; }, "name = 'C:\\path'\nd = 1979-05-27T07:32:00Z\nf = 1.50\nbig = 9007199254740991\nx = 3\n"],
  ['indentation inside a section is followed', '[t] # header\n  x = 1   # indented\n', (d) => { d.t.x = 2; d.t.y = 'n'; }, '[t] # header\n  x = 2   # indented\n  y = "n"\n'],
  ['an empty file gets plain TOML', '', (d) => { d.telemetry = false; d.thinking = { enabled: true }; }, 'telemetry = false\n\n[thinking]\nenabled = true\n'],
  ['strings that need escapes', 'a = 1\n', (d) => { d.s = 'quote " back \\ nl \n tab \t del \u007f'; }, 'a = 1\ns = "quote \\" back \\\\ nl \\n tab \\t del \\u007f"\n'],
];

for (const [name, text, edit, expected] of cases) {
  test(`in place: ${name}`, (t) => {
    t.is(patched(t, text, edit), expected);
  });
}

test('nothing to change: the text comes back as it was, byte for byte', (t) => {
  const text = '# c\r\na = 1   \n\n\n[t]\n';
  t.is(patchToml(text, parse(text) as Doc, parse(text) as Doc).text, text);
});

test('an edit the patcher cannot make in place rewrites only that top-level table', (t) => {
  // Dotted keys inside an inline table: a key added under them is not located in place.
  const text = '# keep me\nx = 1 # and me\n\n[a]\nq = { b.c = 1 }\n\n[z]\nw = 2 # me too\n';
  const out = patched(t, text, (d) => { d.a.q.b.d = 2; }, 'tables');
  t.true(out.startsWith('# keep me\nx = 1 # and me\n\n[z]\nw = 2 # me too\n'), out);
  t.regex(out, /\n\[a\.q\]\nb = \{ c = 1, d = 2 \}\n$/);
});

/** Files of many shapes; the properties below run on every key of each. */
const CORPUS = [
  '# svc-code\n\ndefault_model = "acme/fast"   # picked by hand\ntelemetry = false\n\n'
    + '[providers.acme]\ntype = "chat_compat"\nbase_url = "https://x/v1"\napi_key = "sk-1"\ncustom_headers = { "X-A" = "1" }\n\n'
    + '# the fast one\n[models."acme/fast"]\nprovider = "acme"\nmodel = "fast"\nmax_context_size = 128000\ncapabilities = [\n  "thinking", # yes\n  "tool_use",\n]\n\n'
    + '[models."acme/fast".overrides]\ndisplay_name = "Fast"\n\n[[permission.rules]]\ndecision = "allow"\npattern = "Read"\n\n[[permission.rules]]\ndecision = "deny"\npattern = "Bash(rm *)"\nreason = "no"\n\n'
    + '[loop_control]\nmax_attempts_per_step = 3\n',
  'thinking.enabled = false\nthinking.effort = \'high\'\nextra_skill_dirs = ["~/a", "~/b"]\n\n[background]\n  keep_alive_on_exit = true\n  print_background_mode = "drain"\n\n[secondary_model]\nmodels = { fast = "", "deep.one" = "hard tasks" }\ndefault_model = "fast"\n',
  '[providers]\nacme.type = "svc"\nacme.oauth = { storage = "file", key = "acme" }\n\n[services.pymodel_search]\nbase_url = "https://s"\n\n[[hooks]]\nevent = "PreToolUse"\nmatcher = "Bash"\ncommand = """\necho hi\n# not a comment\n"""\ntimeout = 5\n',
];

/** Every leaf (a value that is not a table and not an array of tables written as sections) with its path. */
function leaves(layout: TomlLayout): KeyPath[] {
  return layout.entries.filter((e) => e.node.value.type !== 'TOMLInlineTable').map((e) => e.path);
}

const get = (d: any, p: KeyPath) => p.slice(0, -1).reduce((x, k) => x[k], d);

/** The span of `a` that differs from `b` (after their common prefix and suffix). */
function changedSpan(a: string, b: string): [number, number] {
  let s = 0;
  while (s < a.length && s < b.length && a[s] === b[s]) s++;
  let e = 0;
  while (e < a.length - s && e < b.length - s && a[a.length - 1 - e] === b[b.length - 1 - e]) e++;
  return [s, a.length - e];
}

test('property: changing any one value changes only the bytes of that value', (t) => {
  for (const text of CORPUS) {
    const layout = new TomlLayout(text);
    for (const path of leaves(layout)) {
      const out = patched(t, text, (d) => { get(d, path)[path[path.length - 1]!] = 'changed-value'; });
      const v = layout.entry(path)!.node.value.range;
      const [s, e] = changedSpan(text, out);
      t.true(s >= v[0] && e <= v[1], `${JSON.stringify(path)}: only its value changed`);
    }
  }
});

test('property: removing any one key removes exactly its lines', (t) => {
  for (const text of CORPUS) {
    const layout = new TomlLayout(text);
    for (const e of layout.entries.filter((x) => !x.inline)) {
      const out = patched(t, text, (d) => { delete get(d, e.path)[e.path[e.path.length - 1]!]; });
      const lines = [layout.lineStart(e.node.range[0]), layout.lineEnd(e.node.range[1])];
      t.is(out, text.slice(0, lines[0]) + text.slice(lines[1]), JSON.stringify(e.path));
    }
  }
});

test('property: adding a key to any table adds exactly one line and keeps every other line in order', (t) => {
  for (const text of CORPUS) {
    const doc = parse(text) as any;
    const tables: KeyPath[] = [[]];
    const walk = (x: any, p: KeyPath) => {
      for (const [k, v] of Object.entries(x)) {
        if (Array.isArray(v) && v.every((el) => typeof el === 'object' && !Array.isArray(el))) v.forEach((el, i) => { tables.push([...p, k, i]); walk(el, [...p, k, i]); });
        else if (v && typeof v === 'object' && !Array.isArray(v) && !(v instanceof Date)) { tables.push([...p, k]); walk(v, [...p, k]); }
      }
    };
    walk(doc, []);
    for (const p of tables) {
      const out = patched(t, text, (d) => { p.reduce((x: any, k) => x[k], d).zz_new = 1; });
      const inLines = text.split('\n');
      const outLines = out.split('\n');
      const layout = new TomlLayout(text);
      const inline = layout.entry(p)?.node.value.type === 'TOMLInlineTable';
      // A table known only through its subtables gets a section of its own: a blank line, its header, the key.
      const implicit = !inline && p.length > 0 && !layout.section(p) && !layout.linesUnder(p).some((e) => e.section.path.length < p.length);
      // The root's first key is set apart from the first section by a blank line.
      const firstRootKey = p.length === 0 && !layout.linesOf(layout.sections[0]).length;
      t.is(outLines.length, inLines.length + (inline ? 0 : implicit ? 3 : firstRootKey ? 2 : 1), `${JSON.stringify(p)}:\n${out}`);
      t.is(outLines.filter((l) => l.includes('zz_new = 1')).length, 1);
      // Every other line is kept, in order (an inline table's own line is the one that changed).
      const own = inline ? text.slice(0, layout.entry(p)!.node.range[0]).split('\n').length - 1 : -1;
      const kept = inLines.filter((_, i) => i !== own);
      let j = 0;
      for (const line of outLines) if (j < kept.length && line === kept[j]) j++;
      t.is(j, kept.length, `${JSON.stringify(p)}: every other line kept`);
    }
  }
});
