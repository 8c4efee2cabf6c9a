// "Copy" buttons (code blocks, messages, tool input and output): the Clipboard API where the page is a secure
// context (localhost is), else a selected off-screen text field and execCommand (a daemon reached over plain
// http on another host). The button says "Copied" for a moment.
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

/**
 * `label` is the accessible name ("Copy output"); the visible text is "Copy", then "Copied" for a moment. No
 * hooks, and `icon={false}` on the ones every answer and code block has: a row windowed in during a scroll
 * should cost little.
 */
export function CopyButton(props: { text: string | (() => string); label: string; class?: string; icon?: boolean }) {
  const copy = async (button: HTMLButtonElement) => {
    const word = button.querySelector('span');
    let said = 'Copied';
    try {
      await copyText(typeof props.text === 'function' ? props.text() : props.text);
      button.classList.add('done');
    } catch (e) {
      console.warn('copy failed', e);
      said = 'Copy failed';
    }
    if (word) word.textContent = said;
    setTimeout(() => {
      button.classList.remove('done');
      if (word) word.textContent = 'Copy';
    }, 1600);
  };
  return (
    <button type="button" class={`copy${props.class ? ` ${props.class}` : ''}`} aria-label={props.label} title={props.label} onClick={(e) => void copy(e.currentTarget)}>
      {props.icon !== false && <Icon name="copy" size={13} />}
      <span>Copy</span>
    </button>
  );
}
