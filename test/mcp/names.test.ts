import test from 'ava';
import { exposedName, MAX_TOOL_NAME } from '../../src/mcp/names.ts';

// Every model API takes `[a-zA-Z0-9_-]` names of at most 64 characters (the strict fixture refuses others).
const ACCEPTED = /^[a-zA-Z0-9_-]{1,64}$/;

test('characters model APIs refuse become _ in the server part as in the tool part', (t) => {
  t.is(exposedName('docs.site', 'search'), 'mcp__docs_site__search');
  t.is(exposedName('my server', 'get.page/2'), 'mcp__my_server__get_page_2');
  t.is(exposedName('github', 'create_issue'), 'mcp__github__create_issue');
  for (const [server, tool] of [['a.b:c', 'x y'], ['ünï', 'tööl'], ['s'.repeat(80), 't.'.repeat(40)]]) t.regex(exposedName(server!, tool!), ACCEPTED);
});

test('a name over 64 characters is cut with a stable hash suffix; two long names sharing a prefix differ', (t) => {
  const a = exposedName('s'.repeat(60), 'alpha');
  const b = exposedName('s'.repeat(60), 'beta');
  t.is(a.length, MAX_TOOL_NAME);
  t.not(a, b);
  t.is(a, exposedName('s'.repeat(60), 'alpha'));
  t.regex(a, /_[0-9a-f]{8}$/);
});
