// Tool rows in the chat (spec/clients.md B3 `tool` frames): one compact line each — what the call does in
// words ("Run", the command), and its honest state: waiting for approval, running, done (with its time when
// it was watched), failed (a command's non-zero exit code), rejected or cancelled (the user's decision, not an
// error), error. A click opens it to the input and the output, each with a copy button. Edit and Write open
// on their diff; a failed command opens on its output. The client renders `input`, else `display`
// (read as an object or a string: chat/display.ts).
import type { ComponentChildren } from 'preact';
import { memo } from 'preact/compat';
import { useState } from 'preact/hooks';
import { CopyButton } from '../copy.tsx';
import { Icon } from '../icons.tsx';
import type { Frame } from '../transcript.ts';
import { lineDiff, parseUnified, type DiffLine } from './diff.ts';
import { displayLine, readDisplay, type Shown } from './display.ts';

/** A tool output as text: a string, or an array of `{type:"text", text}` parts, else JSON. */
export function show(v: unknown): string {
  if (v === undefined || v === null) return '';
  if (typeof v === 'string') return v;
  if (Array.isArray(v) && v.every((p) => p && typeof p === 'object' && 'text' in p)) return v.map((p) => p.text).join('');
  return JSON.stringify(v, null, 2);
}

const FOLD_LINES = 40;

export function DiffView(props: { lines: DiffLine[]; label?: string }) {
  const { lines } = props;
  const add = lines.filter((l) => l.kind === '+').length;
  const del = lines.filter((l) => l.kind === '-').length;
  const body = (
    <pre class="diff" aria-label={props.label ?? 'diff'}>
      {lines.map((l, i) => <div key={i} class={l.kind === '+' ? 'add' : l.kind === '-' ? 'del' : 'ctx'}>{`${l.kind}${l.text}`}</div>)}
    </pre>
  );
  const stat = <span class="diffstat"><span class="plus">+{add}</span> <span class="minus">−{del}</span></span>;
  if (lines.length <= FOLD_LINES) return <div class="diff-wrap">{stat}{body}</div>;
  return <details class="diff-wrap"><summary>{stat} {lines.length} lines</summary>{body}</details>;
}

/** What became of the call, as the row says it. */
export type ToolStatus = 'waiting' | 'running' | 'done' | 'failed' | 'rejected' | 'cancelled' | 'error';
/** The call's approval, when it had one: its interaction's state. */
export type ApprovalState = 'pending' | 'approved' | 'rejected' | 'cancelled' | undefined;

const str = (v: unknown): string | undefined => typeof v === 'string' ? v : undefined;

/** A shell command's closing line (src/tools/bash.ts): `[exit code N]`, a timeout, an abort or a signal. */
const ENDING = /\n?\[(exit code (-?\d+)|timed out after [^\]]*|aborted; [^\]]*|killed by [^\]]*)\]\s*$/;

export function commandEnd(out: string): { body: string; exit?: number; ending?: string } {
  const m = ENDING.exec(out);
  if (!m) return { body: out };
  return { body: out.slice(0, m.index), ...(m[2] !== undefined ? { exit: Number(m[2]) } : { ending: m[1] }) };
}

export function statusOf(f: Frame, approval: ApprovalState): ToolStatus {
  if (f.state === 'running') return approval === 'pending' ? 'waiting' : 'running';
  if (f.state === 'error') {
    const why = str(f.error) ?? show(f.output);
    if (approval === 'rejected' || /^The user rejected this tool call/.test(why)) return 'rejected';
    if (approval === 'cancelled' || /^The permission request was cancelled/.test(why)) return 'cancelled';
    return 'error';
  }
  if (f.name === 'Bash') {
    const end = commandEnd(show(f.output));
    if ((end.exit !== undefined && end.exit !== 0) || end.ending) return 'failed';
  }
  return 'done';
}

const seconds = (ms: number) => (ms < 1000 ? `${Math.max(0.1, ms / 1000).toFixed(1)}s` : ms < 60_000 ? `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)}s` : `${Math.floor(ms / 60_000)}m ${Math.round((ms % 60_000) / 1000)}s`);

/** The call's duration: the frame's own when it carries one, else the time this page watched it run. */
function durationOf(f: Frame): number | undefined {
  if (typeof f.durationMs === 'number') return f.durationMs;
  return f.seenAt !== undefined && f.endedAt !== undefined ? f.endedAt - f.seenAt : undefined;
}

const MCP = /^mcp__(.+?)__(.+)$/;

/** The row's verb and its argument: "Run" and the command, "Read" and the path, … */
function headOf(f: Frame, input: Record<string, unknown>, shown: Shown | null): { verb: string; arg?: string } {
  const path = str(input.file_path) ?? str(input.path);
  const view = str(f.view);
  switch (f.name) {
    case 'Bash': return { verb: 'Run', arg: str(input.command)?.split('\n')[0] ?? displayLine(shown) ?? view };
    case 'Read': return { verb: 'Read', arg: path ?? displayLine(shown) };
    case 'Write': return { verb: 'Write', arg: path ?? displayLine(shown) };
    case 'Edit': case 'MultiEdit': return { verb: 'Edit', arg: path ?? displayLine(shown) };
    case 'Grep': case 'Glob': return { verb: 'Search', arg: str(input.pattern) ?? view };
    case 'WebFetch': return { verb: 'Fetch', arg: str(input.url) ?? view };
    case 'WebSearch': return { verb: 'Search the web', arg: str(input.query) ?? view };
    case 'TodoWrite': return { verb: 'Plan', arg: displayLine(shown) ?? view };
    case 'AskUserQuestion': return { verb: 'Ask', arg: view };
    case 'Agent': return { verb: 'Agent', arg: str(input.description) ?? view };
    case 'Skill': return { verb: 'Skill', arg: str(input.skill) ?? view };
    default: {
      const mcp = MCP.exec(String(f.name));
      if (mcp) return { verb: `${mcp[1]} · ${mcp[2]}`, arg: view };
      return { verb: String(f.name), arg: view ?? str(input.command) ?? str(input.pattern) ?? str(input.query) ?? str(input.url) ?? path };
    }
  }
}

/** Read's closing note when it stopped early (src/tools/read.ts): `[more lines: showed lines 1-40 of 300; …]`. */
const READ_CUT = /\n?\[[^\]:]*: showed lines (\d+)-(\d+) of (\d+);[^\]]*\]\s*$/;
const NUMBERED = /^ *(\d+)\t/;

/** What a Read gave, in words: "3 lines", "lines 1–40 of 300", "lines 5–9", "empty file". */
export function readExtent(out: string): string {
  if (out.trim() === '[empty file]') return 'empty file';
  const cut = READ_CUT.exec(out);
  if (cut) return `lines ${cut[1]}–${cut[2]} of ${cut[3]}`;
  const lines = out.replace(/\n$/, '').split('\n');
  const first = NUMBERED.exec(lines[0] ?? '')?.[1];
  const last = NUMBERED.exec(lines.at(-1) ?? '')?.[1];
  // From an offset, the numbers say where the lines were; otherwise (or text of another shape) a count.
  if (first !== undefined && last !== undefined && first !== '1') return `lines ${first}–${last}`;
  return `${lines.length} line${lines.length === 1 ? '' : 's'}`;
}

function stateText(status: ToolStatus, f: Frame, exit: number | undefined, ending: string | undefined): string {
  const ms = durationOf(f);
  const took = ms !== undefined ? ` · ${seconds(ms)}` : '';
  switch (status) {
    case 'waiting': return 'waiting for approval';
    case 'running': return str(f.progress?.text)?.split('\n').filter(Boolean).at(-1)?.slice(0, 60) ?? 'running…';
    case 'failed': return exit !== undefined ? `failed · exit ${exit}${took}` : `failed · ${ending ?? ''}`;
    case 'done': {
      if (exit !== undefined) return `exit ${exit}${took}`;
      if (f.name === 'Read') return `${readExtent(show(f.output))}${took}`;
      return `done${took}`;
    }
    default: return status;
  }
}

function Section(props: { label: string; copy?: string; copyLabel?: string; children: ComponentChildren }) {
  return (
    <div class="tool-section">
      <div class="label">{props.label}<span class="spacer" />{props.copy !== undefined && props.copy !== '' && <CopyButton text={props.copy} label={props.copyLabel ?? `Copy ${props.label.toLowerCase()}`} />}</div>
      {props.children}
    </div>
  );
}

function Todo(props: { items: Array<{ title: string; status: string }> }) {
  return <ul class="todo">{props.items.map((it, i) => <li key={i} class={it.status}>{it.status === 'done' || it.status === 'completed' ? '✓' : it.status === 'in_progress' ? '▸' : '○'} {it.title}</li>)}</ul>;
}

/** The open row's body: the call's input (by tool) and its output. */
function Body(props: { f: Frame; input: Record<string, unknown>; shown: Shown | null; out: string; status: ToolStatus }) {
  const { f, input, shown, out } = props;
  const path = str(input.file_path) ?? str(input.path);
  const outSection = out !== '' && props.status !== 'rejected' && props.status !== 'cancelled' && props.status !== 'error'
    ? <Section label="Output" copy={out} copyLabel="Copy output"><pre class="tool-out">{out}</pre></Section> : null;
  switch (f.name) {
    case 'Bash': {
      const command = str(input.command) ?? (shown?.kind === 'command' ? shown.command : '');
      // The head shows a one-line command whole; a longer one is shown here in full.
      const long = command.includes('\n') || command.length > 80;
      return <>{command && (long || !outSection) && <Section label="Command" copy={command} copyLabel="Copy command"><pre class="tool-in">{`$ ${command}`}</pre></Section>}{outSection}</>;
    }
    case 'Edit':
      if (typeof input.old_string === 'string' && typeof input.new_string === 'string') {
        return <>{<DiffView lines={lineDiff(input.old_string, input.new_string)} label={`diff of ${path}`} />}{f.state === 'done' && out && <div class="tool-note">{out}</div>}</>;
      }
      break;
    case 'Write':
      if (typeof input.content === 'string') return <DiffView lines={lineDiff('', input.content)} label={`content of ${path}`} />;
      break;
    case 'Read':
      return outSection;
    default:
      break;
  }
  const args = Object.keys(input).length ? JSON.stringify(input, null, 2) : (str(f.inputText) ?? '').replace(/^\s*\{\s*\}\s*$/, '');
  return (
    <>
      {shown?.kind === 'diff' && (shown.diff ? <DiffView lines={parseUnified(shown.diff)} /> : shown.oldText !== undefined && shown.newText !== undefined ? <DiffView lines={lineDiff(shown.oldText, shown.newText)} /> : null)}
      {shown?.kind === 'todo_list' && <Todo items={shown.items} />}
      {args && <Section label="Input" copy={args} copyLabel="Copy input"><pre class="tool-in">{args}</pre></Section>}
      {outSection}
    </>
  );
}

/**
 * Memoised on the frame and its approval: a tool frame is replaced (never changed in place) by each
 * `frame.upsert`, so a delta streaming into another frame of the turn leaves this row alone.
 */
export const ToolBlock = memo(function ToolBlock(props: { f: Frame; approval?: ApprovalState }) {
  const { f } = props;
  const input: Record<string, unknown> = f.input && typeof f.input === 'object' && !Array.isArray(f.input) ? f.input : {};
  const shown = readDisplay(f.display);
  const status = statusOf(f, props.approval);
  const raw = show(f.output);
  const end = f.name === 'Bash' ? commandEnd(raw) : { body: raw };
  const out = end.body.replace(/\n$/, '');
  const head = headOf(f, input, shown);
  const [open, setOpen] = useState<boolean | null>(null);
  const opensOnItsOwn = f.name === 'Edit' || f.name === 'Write' || status === 'failed';
  const isOpen = open ?? opensOnItsOwn;
  const why = status === 'rejected' || status === 'cancelled' || status === 'error' ? (str(f.error) ?? raw) : '';
  return (
    <div class={`tool ${f.state}`} data-tool={f.name} data-status={status}>
      <button type="button" class="tool-head" aria-expanded={isOpen} onClick={() => setOpen(!isOpen)}>
        <span class="dot" aria-hidden="true" />
        <span class="tool-verb">{head.verb}</span>
        {head.arg && <code class="tool-arg">{head.arg}</code>}
        <span class="tool-state">{stateText(status, f, end.exit, end.ending)}</span>
        <Icon name="chevron" size={14} class="caret" />
      </button>
      {why && <div class="tool-body"><div class={`tool-err${status === 'error' ? '' : ' quiet'}`}>{why}</div></div>}
      {isOpen && <div class="tool-body"><Body f={f} input={input} shown={shown} out={out} status={status} /></div>}
    </div>
  );
}, (a, b) => a.f === b.f && a.approval === b.approval);
