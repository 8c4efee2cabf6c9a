import test from 'ava';
import { StderrExcerpt } from '../../src/mcp/stderr.ts';

// A stdio server's stderr in its last_error: Node 24 prints "Error: Cannot find module" above a stack long enough
// that the tail alone (what was kept before) lost the message; Python prints its exception last.

test('a short stderr is kept whole, trimmed', (t) => {
  const e = new StderrExcerpt(100);
  e.push('  boom\n');
  t.is(e.text(), 'boom');
});

test('a long stderr keeps its start (Node\'s message) and its end (Python\'s exception), across chunks', (t) => {
  const e = new StderrExcerpt(200);
  const node = "node:internal/modules/cjs/loader:1228\n  throw err;\n  ^\n\nError: Cannot find module '/tmp/x/stdio.js'\n";
  e.push(node.slice(0, 30));
  e.push(node.slice(30));
  for (let i = 0; i < 40; i++) e.push(`    at frame${i} (node:internal/modules/run_main:${i})\n`);
  e.push('ValueError: the last line\n');
  const text = e.text();
  t.true(text.length <= 203, String(text.length));
  t.regex(text, /^node:internal/);
  t.regex(text, /Error: Cannot find module/);
  t.regex(text, / … /);
  t.regex(text, /ValueError: the last line$/);
});

test('clear starts over', (t) => {
  const e = new StderrExcerpt(20);
  e.push('x'.repeat(100));
  e.clear();
  e.push('fresh');
  t.is(e.text(), 'fresh');
});
