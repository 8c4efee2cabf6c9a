import test from 'ava';
import { sessionJourney, sendPrompt } from './helpers.ts';

// Assistant text as markdown: headings, lists, tables, emphasis, links and highlighted code, built as
// elements (never innerHTML): raw HTML shows as text, and only http(s) / mailto links are kept.

const ANSWER = [
  '## Plan',
  '',
  'Some **bold**, *italic* and `inline` text, a [safe link](https://example.com/x) and a [bad one](javascript:alert(1)).',
  '',
  '- first item',
  '- second item',
  '',
  '| name | size |',
  '|:-----|-----:|',
  '| a.ts | 12 |',
  '',
  '```ts',
  'const answer: number = 42; // the answer',
  'function twice(x: number) { return x * 2; }',
  '```',
  '',
  '<script>window.__md_pwned = true</script>',
].join('\n');

test('assistant markdown: heading, list, table, emphasis, links, highlighted code; raw HTML stays text', async (t) => {
  const { page, llm, shot, pageErrors } = await sessionJourney(t);
  // Streamed in pieces, as a model would: the rendering follows the text as it grows.
  const pieces = ANSWER.match(/[\s\S]{1,40}/g) ?? [];
  llm.setScript({ events: pieces.map((text) => ({ text })), usage: { input: 10, output: 50 } });
  await sendPrompt(page, 'show me markdown');

  const bubble = page.locator('.bubble.assistant').last();
  await bubble.locator('pre.hljs').waitFor();
  await page.locator('article.turn.completed').last().waitFor();
  t.is(await bubble.locator('h4.md-h').textContent(), 'Plan');
  t.is(await bubble.locator('strong').first().textContent(), 'bold');
  t.is(await bubble.locator('em').first().textContent(), 'italic');
  t.deepEqual(await bubble.locator('ul > li').allTextContents(), ['first item', 'second item']);
  t.deepEqual(await bubble.locator('table th').allTextContents(), ['name', 'size']);
  t.is(await bubble.locator('table td.al-right').textContent(), '12');
  t.is(await bubble.locator('a', { hasText: 'safe link' }).getAttribute('href'), 'https://example.com/x');
  t.is(await bubble.locator('a', { hasText: 'bad one' }).count(), 0, 'a javascript: link is not a link');
  t.true((await bubble.textContent())?.includes('bad one'));
  t.is(await bubble.locator('pre.hljs').getAttribute('data-lang'), 'ts');
  t.true((await bubble.locator('pre.hljs .hljs-keyword').count()) >= 2, 'keywords highlighted');
  t.is(await bubble.locator('pre.hljs .hljs-comment').textContent(), '// the answer');
  t.is(await bubble.locator('pre.hljs').textContent(), 'const answer: number = 42; // the answer\nfunction twice(x: number) { return x * 2; }');
  t.true((await bubble.textContent())?.includes('<script>window.__md_pwned = true</script>'), 'raw HTML shown as text');
  t.is(await bubble.locator('script').count(), 0);
  t.is(await page.evaluate(() => (window as unknown as { __md_pwned?: boolean }).__md_pwned), undefined);
  await shot('markdown');
  t.deepEqual(pageErrors, []);
});
