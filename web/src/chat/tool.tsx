// Tool blocks in the chat (spec/clients.md B3 `tool` frames): the client renders `input` (the parsed
// arguments), else `display`. Bash: the command and its output; Edit / Write: a diff; Read: the file read,
// folded; anything else: its arguments and output, folded.
import type { ComponentChildren } from 'preact';
import { memo } from 'preact/compat';
import { lineDiff, parseUnified, type DiffLine } from './diff.ts';

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

function Output(props: { text: string; fold?: boolean; summary?: string }) {
  const { text } = props;
  if (text === '') return null;
  const lines = text.split('\n').length;
  if (!props.fold && lines <= FOLD_LINES) return <pre class="tool-out">{text}</pre>;
  return (
    <details class="tool-fold">
      <summary>{props.summary ?? `output (${lines} lines)`}</summary>
      <pre class="tool-out">{text}</pre>
    </details>
  );
}

const str = (v: unknown): string | undefined => typeof v === 'string' ? v : undefined;

/**
 * Memoised on the frame: a tool frame is replaced (never changed in place) by each `frame.upsert`, so a
 * delta streaming into another frame of the turn leaves this block alone.
 */
export const ToolBlock = memo(function ToolBlock(props: { f: any }) {
  const { f } = props;
  const input = f.input && typeof f.input === 'object' ? f.input : {};
  const d = f.display;
  const out = show(f.output);
  const path = str(input.file_path) ?? str(input.path);
  let head: string | undefined;
  let body: ComponentChildren = null;
  switch (f.name) {
    case 'Bash':
      head = `$ ${str(input.command) ?? str(d?.command) ?? ''}`;
      body = f.state !== 'error' && <Output text={out} />;
      break;
    case 'Edit':
      head = path;
      if (typeof input.old_string === 'string' && typeof input.new_string === 'string') body = <DiffView lines={lineDiff(input.old_string, input.new_string)} label={`diff of ${path}`} />;
      if (f.state === 'done' && out) body = <>{body}<div class="tool-note">{out}</div></>;
      break;
    case 'Write':
      head = path;
      if (typeof input.content === 'string') body = <DiffView lines={lineDiff('', input.content)} label={`content of ${path}`} />;
      break;
    case 'Read':
      head = path;
      body = f.state === 'done' && <Output text={out} fold summary={`${out.split('\n').length} lines read`} />;
      break;
    default: {
      head = str(input.command) ?? str(input.pattern) ?? str(input.query) ?? str(input.url) ?? path;
      const args = Object.keys(input).length ? JSON.stringify(input, null, 2) : (str(f.inputText) ?? '').replace(/^\s*\{\s*\}\s*$/, '');
      body = (
        <>
          {d?.kind === 'diff' && typeof d.diff === 'string' && <DiffView lines={parseUnified(d.diff)} />}
          {args && head === undefined && <details class="tool-fold"><summary>arguments</summary><pre>{args}</pre></details>}
          {f.state !== 'error' && <Output text={out} fold={out.split('\n').length > 12} />}
        </>
      );
    }
  }
  return (
    <div class={`tool ${f.state}`} data-tool={f.name}>
      <div class="tool-head">
        <span class="tool-name">{f.name}</span>
        {head && <code class="tool-arg">{head}</code>}
        <span class="tool-state">{f.state === 'running' ? (f.progress?.text ?? 'running…') : f.state}</span>
      </div>
      {body}
      {f.state === 'error' && <pre class="tool-err">{f.error ?? out}</pre>}
    </div>
  );
});
