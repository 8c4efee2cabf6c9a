import test from 'ava';
import { execFileSync } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { until } from '../helpers/wait.ts';
import { sendPrompt, sessionJourney } from './helpers.ts';

// What the chat and the file panel show (docs/web-ui.md, "Chat", "Files"): thinking streamed open and
// folded once the answer follows (and kept after a reload), a Read tool block with the file read, the git
// status letters of the file tree.

const git = (cwd: string, ...args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], { cwd, stdio: 'pipe' });

test('thinking streams open and folds after; a Read block shows the file; git status letters in the file tree', async (t) => {
  const { page, llm, shot, pageErrors, folder } = await sessionJourney(t, 'default_permission_mode = "manual"');

  // Thinking, slowly: open while it streams, its text growing; folded once the answer comes.
  const THOUGHTS = ['Let me weigh ', 'the two options ', 'one more time ', 'before answering. '];
  llm.setScript({ events: [...THOUGHTS.map((thinking) => ({ thinking })), { text: 'The answer is 42.' }], delay_ms: 400 });
  await sendPrompt(page, 'think first');
  const thinking = page.locator('details.thinking');
  await thinking.locator('pre', { hasText: 'Let me weigh' }).waitFor();
  t.true(await thinking.evaluate((el) => (el as HTMLDetailsElement).open), 'open while it streams');
  t.true(await thinking.locator('pre').isVisible(), 'its text is visible');
  t.is(await page.locator('.bubble.assistant').count(), 0, 'no answer yet');
  await thinking.locator('pre', { hasText: 'the two options' }).waitFor();
  await shot('thinking-streaming');
  await page.locator('.bubble.assistant', { hasText: 'The answer is 42.' }).waitFor();
  await until(async () => !(await thinking.evaluate((el) => (el as HTMLDetailsElement).open)), 30_000, 'folded once the answer follows');
  t.false(await thinking.locator('pre').isVisible());
  t.is((await thinking.locator('summary').textContent())?.trim(), 'Thinking');
  await page.getByRole('button', { name: 'Abort' }).waitFor({ state: 'detached' });
  await shot('thinking-folded');
  // Kept: after a reload the thinking is there, folded, and opens to its whole text.
  await page.reload();
  await page.locator('.bubble.assistant', { hasText: 'The answer is 42.' }).waitFor();
  t.false(await thinking.evaluate((el) => (el as HTMLDetailsElement).open));
  await thinking.locator('summary').click();
  await thinking.locator('pre', { hasText: THOUGHTS.join('').trim() }).waitFor();

  // Read: the block names the file and folds the text it read, which opens.
  await writeFile(path.join(folder, 'notes.md'), 'first line of notes\nsecond line\nthird line\n');
  llm.setScript(
    { events: [{ tool_call: { id: 'rd1', name: 'Read', args: { file_path: path.join(folder, 'notes.md') } } }] },
    { events: [{ text: 'I read the notes.' }] },
  );
  await sendPrompt(page, 'read the notes');
  await page.locator('.bubble.assistant', { hasText: 'I read the notes.' }).waitFor();
  const read = page.locator('.tool.done[data-tool="Read"]');
  t.regex((await read.locator('.tool-arg').textContent()) ?? '', /notes\.md$/);
  t.regex((await read.locator('.tool-state').textContent()) ?? '', /^3 lines\b/);
  t.is(await read.locator('.tool-out').count(), 0, 'folded');
  await read.getByRole('button', { name: /Read/ }).click();
  await read.locator('.tool-out', { hasText: 'second line' }).waitFor();
  await shot('read-block');

  // A part of a file, and an empty one: the row says which lines, of how many; "empty file" (not "1 line").
  await writeFile(path.join(folder, 'five.txt'), 'l1\nl2\nl3\nl4\nl5\n');
  await writeFile(path.join(folder, 'empty.txt'), '');
  const readOf = (id: string, args: Record<string, unknown>) => ({ tool_call: { id, name: 'Read', args } });
  llm.setScript(
    { events: [readOf('rd2', { file_path: 'five.txt', limit: 2 }), readOf('rd3', { file_path: 'five.txt', offset: 4 }), readOf('rd4', { file_path: 'empty.txt' })] },
    { events: [{ text: 'Read the parts.' }] },
  );
  await sendPrompt(page, 'read the parts');
  await page.locator('.bubble.assistant', { hasText: 'Read the parts.' }).waitFor();
  const states = await page.locator('.tool.done[data-tool="Read"] .tool-state').allTextContents();
  t.deepEqual(states.slice(-3).map((s) => s.replace(/ · .*$/, '')), ['lines 1–2 of 5', 'lines 4–5', 'empty file']);

  // Git: a repository with README.md committed then changed, and an untracked file: the tree shows M and U.
  git(folder, 'init', '-q');
  git(folder, 'add', 'README.md');
  git(folder, 'commit', '-q', '-m', 'first');
  await writeFile(path.join(folder, 'README.md'), '# demo\n\nchanged\n');
  await page.getByRole('button', { name: 'Panels' }).click();
  const files = page.getByRole('complementary', { name: 'Files' });
  await files.getByRole('button', { name: 'Refresh files' }).click();
  const readme = files.locator('button.entry', { hasText: 'README.md' });
  await readme.locator('.git.modified').waitFor();
  t.is(await readme.locator('.git').textContent(), 'M');
  t.is(await readme.locator('.git').getAttribute('title'), 'modified');
  const notes = files.locator('button.entry', { hasText: 'notes.md' });
  t.is(await notes.locator('.git.untracked').textContent(), 'U');
  await shot('git-status');
  t.deepEqual(pageErrors, []);
});
