import type { JournalEvent } from '../../../journal/types.ts';
import type { ModelRequest } from '../../providers/wire/types.ts';
import type { MessageCreatedPayload, PromptAcceptedPayload } from '../../../protocol/events/turns.ts';
import { textOf } from '../../../protocol/schemas/messages.ts';

import type { TitleSource } from '../../../protocol/schemas/enums.ts';
import { known } from '../../../protocol/events/known.ts';

export type { TitleSource };

export const MAX_TITLE_CHARS = 80;
const PER_PROMPT_CHARS = 500;
const PER_DIGEST_ENTRY_CHARS = 300;
const MAX_SOURCE_CHARS = 4000;

const INSTRUCTION = [
  'You name conversations between a user and a coding assistant.',
  'Reply with the title only: 3 to 8 words, in the language of the conversation,',
  'no quotes, no markdown, no trailing punctuation.',
].join(' ');

interface Entry { id: string; role: 'user' | 'assistant'; text: string }

const isMain = (agentId: unknown) => agentId === undefined || agentId === 'main';

/**
 * The main agent's conversation from a session stream: user prompts
 * (`prompt.accepted`) and messages (`message.created`), one entry per message
 * id, so a prompt journaled both ways counts once.
 */
export function conversationOf(events: JournalEvent[]): Entry[] {
  const byId = new Map<string, Entry>();
  for (const e of events) {
    if (known(e).type === 'prompt.accepted') {
      const p = e.payload as PromptAcceptedPayload;
      if (!isMain(p.agent_id)) continue;
      const id = p.user_message_id || `prompt:${p.prompt_id}`;
      if (!byId.has(id)) byId.set(id, { id, role: 'user', text: textOf(p.content).trim() });
    } else if (known(e).type === 'message.created') {
      const p = e.payload as MessageCreatedPayload;
      const m = p.message;
      if (!isMain(p.agent_id) || !m || (m.role !== 'user' && m.role !== 'assistant')) continue;
      if (!byId.has(m.id)) byId.set(m.id, { id: m.id, role: m.role, text: textOf(m.content).trim() });
    }
  }
  return [...byId.values()].filter((x) => x.text);
}

function clip(s: string, n: number): string {
  return s.length <= n ? s : `${s.slice(0, n - 1)}…`;
}

/** Keeps the head and the tail of a list of blocks within `budget` characters. */
function fit(blocks: string[], budget: number): string {
  const out: string[] = [];
  let used = 0;
  for (const b of blocks) {
    if (used + b.length > budget) break;
    out.push(b);
    used += b.length + 2;
  }
  if (out.length === blocks.length || out.length === 0) return (out.length ? out : [clip(blocks[0] ?? '', budget)]).join('\n\n');
  const head = out.slice(0, Math.max(1, Math.ceil(out.length / 2)));
  const tail: string[] = [];
  let left = budget - head.reduce((n, b) => n + b.length + 2, 0);
  for (let i = blocks.length - 1; i >= head.length && left > blocks[i].length; i--) {
    tail.unshift(blocks[i]);
    left -= blocks[i].length + 2;
  }
  return [...head, '[…]', ...tail].join('\n\n');
}

/** The material the title is made from; empty when the source has nothing. */
export function sourceText(entries: Entry[], source: TitleSource): string {
  const label = (e: Entry) => (e.role === 'user' ? 'User' : 'Assistant');
  if (source === 'user_prompts') {
    return fit(entries.filter((e) => e.role === 'user').map((e) => clip(e.text, PER_PROMPT_CHARS)), MAX_SOURCE_CHARS);
  }
  if (source === 'first_turn') {
    const i = entries.findIndex((e) => e.role === 'user');
    if (i < 0) return '';
    const reply = entries.slice(i + 1).find((e) => e.role === 'assistant');
    return [entries[i], reply].filter((e): e is Entry => Boolean(e)).map((e) => `${label(e)}: ${clip(e.text, MAX_SOURCE_CHARS / 2)}`).join('\n\n');
  }
  return fit(entries.map((e) => `${label(e)}: ${clip(e.text, PER_DIGEST_ENTRY_CHARS)}`), MAX_SOURCE_CHARS);
}

const INTRO: Record<TitleSource, string> = {
  user_prompts: 'The user\'s requests so far:',
  first_turn: 'The first exchange of the conversation:',
  digest: 'A digest of the conversation:',
};

export function titleRequest(text: string, source: TitleSource): ModelRequest {
  return {
    system: INSTRUCTION,
    messages: [{ role: 'user', content: [{ type: 'text', text: `${INTRO[source]}\n\n${text}\n\nTitle:` }] }],
    thinking: { enabled: false },
    maxOutputTokens: 256,
  };
}

/** A prompt as a stand-in title: its first non-empty line, spaces collapsed, cut at a word to at most 80 chars (`…` when cut). */
export function promptTitle(text: string): string {
  const first = text.split('\n').map((l) => l.replace(/\s+/g, ' ').trim()).find((l) => l) ?? '';
  if (first.length <= MAX_TITLE_CHARS) return first;
  const cut = first.slice(0, MAX_TITLE_CHARS - 1);
  const space = cut.lastIndexOf(' ');
  return `${(space > MAX_TITLE_CHARS / 2 ? cut.slice(0, space) : cut).trimEnd()}…`;
}

/** The model's answer as a title: first line, no label, quotes or end punctuation, at most 80 chars. */
export function cleanTitle(raw: string): string {
  const line = raw.split('\n').map((l) => l.trim()).find((l) => l) ?? '';
  let t = line.replace(/^#+\s*/, '').replace(/^title\s*:\s*/i, '');
  t = t.replace(/^[\s"'`*_“”‘’«»]+|[\s"'`*_“”‘’«»]+$/g, '').replace(/[.。!！]+$/, '').replace(/\s+/g, ' ').trim();
  if (t.length <= MAX_TITLE_CHARS) return t;
  const cut = t.slice(0, MAX_TITLE_CHARS);
  const space = cut.lastIndexOf(' ');
  return (space > MAX_TITLE_CHARS / 2 ? cut.slice(0, space) : cut).trim();
}
