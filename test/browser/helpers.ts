import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { startFixtureLlm, type FixtureLlm } from '../../fixtures/llm/index.ts';
import { daemonEnv, launch, ROOT, startScriptArgv, type Launched } from '../helpers/built.ts';
import { engineConfig } from '../helpers/llm.ts';
import { tempHome } from '../helpers/server.ts';
import { until } from '../helpers/wait.ts';

/** Screenshots of every step: test-results/browser/<test>/<n>-<step>.png */
export const OUT = path.join(ROOT, 'test-results', 'browser');

/** Debian's chromium (apt-get install -y chromium); playwright never downloads a browser here. */
export const CHROMIUM = process.env.SVC_CODE_CHROMIUM ?? '/usr/bin/chromium';

export interface Journey {
  llm: FixtureLlm;
  daemon: Launched;
  /** The URL the daemon printed: `http://127.0.0.1:<port>/#token=...` */
  url: string;
  browser: Browser;
  page: Page;
  shot(step: string): Promise<void>;
  /** Uncaught page errors and CSP violations so far: every test ends by asserting there are none. */
  pageErrors: string[];
}

/** The fixture LLM, the daemon as `npm start` runs it (printing its URL), and a browser page; all stopped at teardown. */
export async function journey(t: { title: string; teardown(fn: () => unknown): void }, extraToml = 'default_permission_mode = "manual"', extraArgs: string[] = []): Promise<Journey> {
  if (!existsSync(CHROMIUM)) throw new Error(`no browser at ${CHROMIUM}: apt-get install -y chromium (or set SVC_CODE_CHROMIUM)`);
  const llm = await startFixtureLlm();
  t.teardown(() => llm.close());
  const home = await tempHome();
  await writeFile(path.join(home, 'config.toml'), engineConfig(llm.url, extraToml));
  const daemon = await launch([...startScriptArgv(), '--port', '0', ...extraArgs], { cwd: ROOT, env: daemonEnv(home) });
  t.teardown(() => daemon.stop());
  // The daemon's warnings and errors (pino levels 40+), printed with the test's title: what a failure needs.
  t.teardown(() => {
    const bad = daemon.stderr().split('\n').filter((l) => /"level":(40|50|60)\b/.test(l));
    if (bad.length) console.error(`daemon warnings in "${t.title}":\n${bad.join('\n')}`);
  });
  const url: string = await until(() => /web UI: (\S+)/.exec(daemon.stdout())?.[1] ?? '', 10_000, 'the web UI line on stdout');
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
  t.teardown(() => browser.close());
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  const errors: string[] = [];
  const pageErrors: string[] = [];
  page.on('pageerror', (e) => pageErrors.push(String(e)));
  page.on('console', (m) => {
    if (m.type() !== 'error') return;
    errors.push(m.text());
    if (/Content Security Policy/i.test(m.text())) pageErrors.push(m.text());
  });
  t.teardown(() => { if (errors.length) console.error(`browser errors in "${t.title}":\n${errors.join('\n')}`); });
  const dir = path.join(OUT, t.title.replace(/[^a-z0-9]+/gi, '-').slice(0, 60));
  await mkdir(dir, { recursive: true });
  let n = 0;
  const shot = async (step: string) => {
    await page.screenshot({ path: path.join(dir, `${String(++n).padStart(2, '0')}-${step}.png`) });
  };
  return { llm, daemon, url, browser, page, shot, pageErrors };
}

/** Adds a fresh folder as a workspace through the sidebar and opens a new session in it; returns the folder. */
export async function newSessionInUi(page: Page): Promise<string> {
  const { mkdtemp } = await import('node:fs/promises');
  const os = await import('node:os');
  const folder = await mkdtemp(path.join(os.tmpdir(), 'webui-project-'));
  await writeFile(path.join(folder, 'README.md'), '# demo\n');
  await page.getByLabel('Workspace folder').fill(folder);
  await page.getByRole('button', { name: 'Add', exact: true }).click();
  await page.getByRole('button', { name: `New session in ${path.basename(folder)}` }).click();
  await page.waitForURL(/\/s\/[^/]+$/);
  await page.getByLabel('Prompt').waitFor();
  return folder;
}

/** The session id of a page at `/s/<id>`. */
export const sidOf = (pageUrl: string): string => /\/s\/([^/]+)$/.exec(new URL(pageUrl).pathname)![1]!;

export interface SessionJourney extends Journey {
  /** REST beside the browser (restOf). */
  rest: ReturnType<typeof restOf>;
  /** The new session's id and folder. */
  sid: string;
  folder: string;
}

/** The usual opening: `journey`, the page at the printed URL, a new session in a fresh folder (newSessionInUi). */
export async function sessionJourney(t: Parameters<typeof journey>[0], extraToml?: string, extraArgs?: string[]): Promise<SessionJourney> {
  const j = await journey(t, extraToml, extraArgs);
  await j.page.goto(j.url);
  const folder = await newSessionInUi(j.page);
  return { ...j, rest: restOf(j.url), sid: sidOf(j.page.url()), folder };
}

/** Types `text` into the composer and sends it (Enter). */
export async function sendPrompt(page: Page, text: string): Promise<void> {
  await page.getByLabel('Prompt').fill(text);
  await page.getByLabel('Prompt').press('Enter');
}

/** REST calls beside the browser, with the token of the printed URL; answers `data` (throws on a non-zero code). */
export function restOf(url: string): <T = any>(method: string, path: string, body?: unknown) => Promise<T> {
  const u = new URL(url);
  const token = decodeURIComponent(/token=([^&]+)/.exec(u.hash)![1]!);
  return async (method, p, body) => {
    const res = await fetch(u.origin + p, {
      method,
      headers: { Authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const env = await res.json() as { code: number; msg?: string; data: any };
    if (env.code !== 0) throw new Error(`${method} ${p}: ${env.code} ${env.msg}`);
    return env.data;
  };
}
