// "Copy" buttons (code blocks, messages, tool input and output): the Clipboard API where the page is a secure
// context (localhost is), else a selected off-screen text field and execCommand (a daemon reached over plain
// http on another host). The button says "Copied" for a moment.
import { useEffect, useRef, useState } from 'preact/hooks';
import { Icon } from './icons.tsx';

async function copyText(text: string): Promise<void> {
  if (navigator.clipboard && window.isSecureContext) return navigator.clipboard.writeText(text);
  const area = document.createElement('textarea');
  area.value = text;
  area.setAttribute('readonly', '');
  area.style.position = 'fixed';
  area.style.left = '-9999px';
  document.body.appendChild(area);
  area.select();
  try {
    if (!document.execCommand('copy')) throw new Error('the browser refused to copy');
  } finally {
    area.remove();
  }
}

/** `label` is the accessible name ("Copy output"); the visible text is "Copy", then "Copied". */
export function CopyButton(props: { text: string | (() => string); label: string; class?: string }) {
  const [state, setState] = useState<'idle' | 'done' | 'failed'>('idle');
  const timer = useRef<number | undefined>(undefined);
  useEffect(() => () => clearTimeout(timer.current), []);
  const copy = async () => {
    try {
      await copyText(typeof props.text === 'function' ? props.text() : props.text);
      setState('done');
    } catch (e) {
      console.warn('copy failed', e);
      setState('failed');
    }
    clearTimeout(timer.current);
    timer.current = window.setTimeout(() => setState('idle'), 1600);
  };
  return (
    <button type="button" class={`copy${state === 'done' ? ' done' : ''}${props.class ? ` ${props.class}` : ''}`} aria-label={props.label} title={props.label} onClick={() => void copy()}>
      <Icon name={state === 'done' ? 'check' : 'copy'} size={13} />
      <span>{state === 'done' ? 'Copied' : state === 'failed' ? 'Copy failed' : 'Copy'}</span>
    </button>
  );
}
