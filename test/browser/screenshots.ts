// The screenshots of docs/web-ui.md (issue 29): first run, a streaming turn, a pending approval, a failed
// command and the Changes view, each at 1400 and 800 px wide, dark and light, written to docs/web-ui/.
// The built daemon (`node scripts/build.mjs` first) with the fixture LLM, Debian's chromium:
//
//   node --import tsx test/browser/screenshots.ts
//
// Not a test (no assertion): the same harness as the browser tests, a demo project in a temp folder.
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { until } from '../helpers/wait.ts';
import { ROOT } from '../helpers/built.ts';
import { journey, restOf } from './helpers.ts';

const OUT = path.join(ROOT, 'docs', 'web-ui');
const WIDTHS = [1400, 800] as const;
const THEMES = ['dark', 'light'] as const;
const HEIGHT = 860;

const git = (cwd: string, ...args: string[]) => execFileSync('git', ['-c', 'user.name=Dana', '-c', 'user.email=dana@example.com', ...args], { cwd, stdio: 'pipe' });

const DATES = `export type Parsed = { year: number; month: number; day: number };

/** Parses an ISO date (YYYY-MM-DD); null when it is not one. */
export function parseDate(text: string): Parsed | null {
  const m = /^(\\d{4})-(\\d{2})-(\\d{2})$/.exec(text.trim());
  if (!m) return null;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (month < 1 || month > 12 || day < 1 || day > 31) return null;
  return { year, month, day };
}
`;

const RUNNER = `const results = [['parses 2024-02-29', false], ['rejects 2023-02-29', false], ['parses 2024-12-31', true], ['rejects 2024-13-01', true]];
for (const [name, ok] of results) console.log(\`\${ok ? '✓' : '✗'} \${name}\`);
const failed = results.filter(([, ok]) => !ok).length;
console.log(\`\\n\${results.length - failed} passing, \${failed} failing\`);
process.exit(failed ? 1 : 0);
`;

/** A small git project: committed, then changed the way an agent's session would leave it. */
async function project(): Promise<string> {
  const dir = path.join(await mkdtemp(path.join(os.tmpdir(), 'webui-shots-')), 'acme-dates');
  await mkdir(path.join(dir, 'src'), { recursive: true });
  await mkdir(path.join(dir, 'test'), { recursive: true });
  await writeFile(path.join(dir, 'README.md'), '# acme-dates\n\nSmall, strict date parsing.\n');
  await writeFile(path.join(dir, 'src', 'dates.ts'), DATES);
  await writeFile(path.join(dir, 'test', 'run.mjs'), RUNNER);
  git(dir, 'init', '-q', '-b', 'main');
  git(dir, 'add', '.');
  git(dir, 'commit', '-q', '-m', 'parseDate');
  git(dir, 'checkout', '-q', '-b', 'leap-years');
  return dir;
}

const ANSWER = [
  '`parseDate` accepts a strict ISO date, `YYYY-MM-DD`, and returns its parts, or `null`:',
  '',
  '```ts',
  "parseDate('2024-02-29'); // { year: 2024, month: 2, day: 29 }",
  "parseDate('29/02/2024'); // null: not ISO",
  '```',
  '',
  'It checks the month (1–12) and that the day is within 1–31, but **not** the length of the month: `2023-02-31` passes today.',
].join('\n');

const STREAM = 'I added `daysIn(year, month)` and made `parseDate` check the day against it, so February follows the leap-year rule: years divisible by 4, except centuries not divisible by 400. Next I will run the tests again to see the two leap-year cases pass, then tidy the helper into its own module with a short comment on the rule, and add cases for 1900 and 2000 so the century exceptions are covered too.';

async function shoot(page: Page, name: string, width: number, theme: string): Promise<void> {
  await page.evaluate(() => document.fonts.ready);
  await page.waitForTimeout(300);
  await page.screenshot({ path: path.join(OUT, `${name}-${width}-${theme}.png`) });
  console.log(`${name}-${width}-${theme}.png`);
}

async function main(): Promise<void> {
  const cleanups: Array<() => unknown> = [];
  const t = { title: 'screenshots', teardown: (fn: () => unknown) => void cleanups.push(fn) };
  try {
    const { browser, url, llm } = await journey(t);
    const rest = restOf(url);
    const origin = new URL(url).origin;
    await mkdir(OUT, { recursive: true });
    const open = async (width: number, theme: string, at: string, panel?: string) => {
      const ctx = await browser.newContext({ viewport: { width, height: HEIGHT }, deviceScaleFactor: 1 });
      await ctx.addInitScript(({ theme, panel, token }) => {
        localStorage.setItem('svc-code.token', token);
        localStorage.setItem('svc-code.theme', theme);
        localStorage.setItem('svc-code.panel.open', panel ? '1' : '0');
        if (panel) localStorage.setItem('svc-code.panel.tab', panel);
      }, { theme, panel, token: decodeURIComponent(/token=([^&]+)/.exec(url)![1]!) });
      const page = await ctx.newPage();
      await page.goto(origin + at);
      return page;
    };

    // First run: no workspace yet.
    for (const theme of THEMES) for (const width of WIDTHS) {
      const page = await open(width, theme, '/');
      await page.getByRole('region', { name: 'Welcome' }).waitFor();
      await shoot(page, 'first-run', width, theme);
      await page.context().close();
    }

    const dir = await project();
    const ws = await rest<{ id: string }>('POST', '/api/v1/workspaces', { root: dir });
    const session = async (title: string, mode: string) => {
      const s = await rest<{ id: string }>('POST', '/api/v1/sessions', { workspace_id: ws.id });
      await rest('POST', `/api/v1/sessions/${s.id}/profile`, { title, agent_config: { permission_mode: mode } });
      return s.id;
    };
    const idle = (sid: string) => until(async () => {
      const p = await rest('GET', `/api/v1/sessions/${sid}/prompts`);
      return p.active === null && p.queued.length === 0;
    }, 60_000, 'the session idle');
    const prompt = (sid: string, text: string) => rest('POST', `/api/v1/sessions/${sid}/prompts`, { content: [{ type: 'text', text }] });

    // A failed command: the test runner exits 1.
    const failed = await session('Run the date tests', 'yolo');
    llm.setScript(
      { events: [{ text: 'Running the tests.' }, { tool_call: { id: 'f1', name: 'Bash', args: { command: 'node test/run.mjs', description: 'Run the date tests' } } }] },
      { events: [{ text: 'Two tests fail, both on **February 29th**: `parseDate` does not know which years are leap years. I can add that check.' }] },
    );
    await prompt(failed, 'Run the date tests');
    await idle(failed);

    // The streaming session: an answered question, then a turn that reads, edits and is still writing.
    const streaming = await session('Leap years in parseDate', 'yolo');
    llm.setScript({ events: [{ text: ANSWER }] });
    await prompt(streaming, 'What does parseDate accept?');
    await idle(streaming);

    // A pending approval (manual mode): the command waits.
    const approval = await session('Format the sources', 'manual');
    llm.setScript({ events: [{ text: 'I will format the sources with Prettier.' }, { tool_call: { id: 'a1', name: 'Bash', args: { command: 'npx prettier --write "src/**/*.ts"' } } }] });
    await prompt(approval, 'Format the sources');
    await until(async () => (await rest<{ items: unknown[] }>('GET', `/api/v1/sessions/${approval}/approvals?status=pending`)).items.length > 0, 20_000, 'the approval asked');

    const edited = DATES.replace('  if (month < 1 || month > 12 || day < 1 || day > 31) return null;', '  if (month < 1 || month > 12 || day < 1 || day > daysIn(year, month)) return null;')
      + '\n/** Days in a month, February by the leap-year rule. */\nexport function daysIn(year: number, month: number): number {\n  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;\n  return [4, 6, 9, 11].includes(month) ? 30 : 31;\n}\n';
    llm.setScript(
      { events: [{ thinking: 'The month check is there; the day is only bounded by 31. I need the month length, with February depending on the year.' }, { tool_call: { id: 's1', name: 'Read', args: { file_path: 'src/dates.ts' } } }] },
      { events: [{ tool_call: { id: 's2', name: 'Edit', args: { file_path: 'src/dates.ts', old_string: DATES, new_string: edited } } }] },
      { events: (STREAM.match(/\S+\s*/g) ?? []).map((text) => ({ text })), delay_ms: 700 },
    );
    // The streaming shots: every page open (and subscribed) before the turn starts, so each follows it live.
    const watching: Array<{ page: Page; width: number; theme: string }> = [];
    for (const theme of THEMES) for (const width of WIDTHS) {
      const page = await open(width, theme, `/s/${streaming}`);
      await page.locator('.bubble.assistant').first().waitFor();
      await page.locator('.conn.on').waitFor({ state: 'attached' });
      watching.push({ page, width, theme });
    }
    await prompt(streaming, 'Make parseDate reject Feb 29 outside leap years');
    await writeFile(path.join(dir, 'src', 'calendar.ts'), "export { daysIn } from './dates.ts';\n");
    for (const { page, width, theme } of watching) {
      await page.waitForFunction(() => ([...document.querySelectorAll('.log .bubble.assistant')].at(-1)?.textContent ?? '').length > 150, undefined, { timeout: 60_000 });
      await shoot(page, 'streaming', width, theme);
      await page.context().close();
    }
    for (const theme of THEMES) for (const width of WIDTHS) {
      let page = await open(width, theme, `/s/${approval}`);
      await page.getByRole('group', { name: 'Approval' }).waitFor();
      await shoot(page, 'approval', width, theme);
      await page.context().close();
      page = await open(width, theme, `/s/${failed}`);
      await page.locator('.tool[data-status="failed"] .tool-out').waitFor();
      await shoot(page, 'failed-command', width, theme);
      await page.context().close();
      page = await open(width, theme, `/s/${failed}`, 'changes');
      await page.getByRole('region', { name: 'Changes' }).locator('pre.diff').first().waitFor();
      await shoot(page, 'changes', width, theme);
      await page.context().close();
    }
  } finally {
    for (const fn of cleanups.reverse()) await fn();
  }
}

await main();
