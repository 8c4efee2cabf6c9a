import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Page } from 'playwright-core';
import { startFixtureLlm, type FixtureLlm } from '../../../fixtures/llm/index.ts';
import { daemonEnv, launch, ROOT, startScriptArgv } from '../../helpers/built.ts';
import { engineConfig } from '../../helpers/llm.ts';
import { tempHome } from '../../helpers/server.ts';
import { TEST_TOKEN } from '../../helpers/wire.ts';
import { frameIssues } from '../../contract/frames.ts';
import { CHROMIUM, OUT } from '../helpers.ts';
import { startUiProxy } from './proxy.ts';

/**
 * The published web UI (`@moonshot-ai/kimi-code`, a devDependency pinned in package.json, installed without its
 * install scripts) as a test client: its `dist-web/` served through a same-origin proxy (proxy.ts) in front of the
 * daemon as `npm start` runs it, in Debian's chromium, with everything that crosses the wire recorded so a failure
 * names the frame or response that broke the UI.
 */

/** The static bundle of the installed package (never copied into the repo). */
export function publishedUiRoot(): string {
  const pkg = createRequire(import.meta.url).resolve('@moonshot-ai/kimi-code/package.json');
  return path.join(path.dirname(pkg), 'dist-web');
}

/** One thing that crossed the wire, or that the page said, in the order it happened. */
export interface Entry { n: number; kind: 'ws<' | 'ws>' | 'http' | 'console' | 'pageerror' | 'toast'; text: string }

/** What the page received, sent, answered and said; `report` lays out what matters when a step fails. */
export class Recorder {
  readonly entries: Entry[] = [];
  private n = 0;

  add(kind: Entry['kind'], text: string): Entry {
    const e = { n: ++this.n, kind, text };
    this.entries.push(e);
    return e;
  }

  /** Console errors, page errors and toasts so far: every step ends with none. */
  troubles(): Entry[] {
    return this.entries.filter((e) => e.kind === 'console' || e.kind === 'pageerror' || e.kind === 'toast');
  }

  /** Received frames that break the client contract (test/contract/frames.ts: clients.md A-F). */
  badFrames(): string[] {
    const out: string[] = [];
    for (const e of this.entries) {
      if (e.kind !== 'ws<') continue;
      let frame: unknown;
      try {
        frame = JSON.parse(e.text);
      } catch {
        out.push(`#${e.n} not JSON: ${e.text.slice(0, 200)}`);
        continue;
      }
      for (const issue of frameIssues(frame)) out.push(`#${e.n} ${issue}`);
    }
    return out;
  }

  /** API answers that were not a success envelope. */
  badResponses(): Entry[] {
    return this.entries.filter((e) => e.kind === 'http' && !/^(2\d\d) \S+ \S+ code=0\b/.test(e.text) && !/^(101|204|304) /.test(e.text));
  }

  /**
   * The failure report: the troubles, each with the frame and the API answer the page had just received (what
   * broke it), the frames and answers that break the contract, and the last frames.
   */
  report(): string {
    const lines: string[] = [];
    for (const t of this.troubles()) {
      lines.push(`${t.kind} #${t.n}: ${t.text.slice(0, 600)}`);
      const before = this.entries.filter((e) => e.n < t.n).reverse();
      const frame = before.find((e) => e.kind === 'ws<');
      const http = before.find((e) => e.kind === 'http');
      if (frame) lines.push(`  last frame before it, #${frame.n}: ${frame.text.slice(0, 800)}`);
      if (http) lines.push(`  last API answer before it, #${http.n}: ${http.text.slice(0, 800)}`);
    }
    const frames = this.badFrames();
    if (frames.length) lines.push('frames that break the client contract:', ...frames.slice(0, 30).map((x) => `  ${x}`));
    const answers = this.badResponses();
    if (answers.length) lines.push('API answers that are not a success:', ...answers.slice(0, 30).map((e) => `  #${e.n} ${e.text.slice(0, 600)}`));
    lines.push('last 40 entries:', ...this.entries.slice(-40).map((e) => `  #${e.n} ${e.kind} ${e.text.slice(0, 300)}`));
    return lines.join('\n');
  }
}

export interface PublishedUi {
  page: Page;
  llm: FixtureLlm;
  rec: Recorder;
  /** The proxy's origin: the page's, the API's and the WebSocket's. */
  origin: string;
  /** A fresh project folder to add as a workspace. */
  folder: string;
  shot(step: string): Promise<void>;
}

/**
 * The fixture LLM, the daemon (`npm start`'s way; from SVC_CODE_PUBLISHED_UI_DAEMON_ROOT when set, to run the same
 * journey against another checkout's build), the proxy, a chromium page recording every frame, API answer, console
 * error, page error and toast. All stopped at teardown.
 */
export async function publishedUi(t: { title: string; teardown(fn: () => unknown): void }): Promise<PublishedUi> {
  if (!existsSync(CHROMIUM)) throw new Error(`no browser at ${CHROMIUM}: apt-get install -y chromium (or set SVC_CODE_CHROMIUM)`);
  const llm = await startFixtureLlm();
  t.teardown(() => llm.close());
  const home = await tempHome();
  await writeFile(path.join(home, 'config.toml'), engineConfig(llm.url, 'default_permission_mode = "manual"'));
  const root = process.env.SVC_CODE_PUBLISHED_UI_DAEMON_ROOT ?? ROOT;
  const daemon = await launch([...startScriptArgv(root), '--port', '0'], { cwd: root, env: daemonEnv(home) });
  t.teardown(() => daemon.stop());
  const proxy = await startUiProxy(publishedUiRoot(), daemon.baseUrl);
  t.teardown(() => proxy.close());
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
  t.teardown(() => browser.close());
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  const rec = record(page, proxy.url);
  const folder = await mkdtemp(path.join(os.tmpdir(), 'published-ui-project-'));
  await writeFile(path.join(folder, 'README.md'), '# demo\n');
  // A git repository, as a project usually is (the UI asks for its git status).
  execFileSync('git', ['init', '-q'], { cwd: folder });
  const dir = path.join(OUT, t.title.replace(/[^a-z0-9]+/gi, '-').slice(0, 60));
  await mkdir(dir, { recursive: true });
  let n = 0;
  const shot = async (step: string) => {
    await page.screenshot({ path: path.join(dir, `${String(++n).padStart(2, '0')}-${step}.png`) });
  };
  return { page, llm, rec, origin: proxy.url, folder, shot };
}

/** The page's address with the token in its fragment, as the daemon prints its own UI's. */
export const tokenUrl = (origin: string) => `${origin}/#token=${TEST_TOKEN}`;

function record(page: Page, origin: string): Recorder {
  const rec = new Recorder();
  page.on('websocket', (ws) => {
    ws.on('framereceived', (f) => rec.add('ws<', String(f.payload)));
    ws.on('framesent', (f) => rec.add('ws>', String(f.payload)));
  });
  page.on('response', async (r) => {
    const url = r.url();
    if (!url.startsWith(`${origin}/api/`)) return;
    const what = `${r.request().method()} ${url.slice(origin.length)}`;
    let code = '';
    let body = '';
    try {
      body = await r.text();
      code = `code=${(JSON.parse(body) as { code?: unknown }).code}`;
    } catch {
      code = 'code=?';
    }
    rec.add('http', `${r.status()} ${what} ${code} ${body.slice(0, 600)}`);
  });
  page.on('console', (m) => {
    if (m.type() === 'error') rec.add('console', m.text());
  });
  page.on('pageerror', (e) => rec.add('pageerror', String(e)));
  // Toasts come and go on their own: every one that appears is reported by the page as it is added.
  void page.exposeFunction('__svcToast', (text: string) => rec.add('toast', text));
  void page.addInitScript(() => {
    const seen = new WeakSet<Node>();
    new MutationObserver(() => {
      for (const el of document.querySelectorAll('.toasts > *')) {
        if (seen.has(el)) continue;
        seen.add(el);
        (window as unknown as { __svcToast(t: string): void }).__svcToast((el as HTMLElement).innerText || el.textContent || '');
      }
    }).observe(document, { childList: true, subtree: true });
  });
  return rec;
}
