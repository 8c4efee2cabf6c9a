// Markdown for assistant text: marked's lexer (CommonMark + GFM tables, lists, emphasis, links) rendered
// token by token into Preact elements, code blocks highlighted by lowlight (highlight.js grammars) as a
// tree of spans. Never innerHTML: raw HTML in a message shows as text, and links keep only http(s) and
// mailto targets, so nothing a model writes can run script or load from elsewhere (the CSP forbids it too).
import type { ComponentChildren } from 'preact';
import { memo } from 'preact/compat';
import { useMemo } from 'preact/hooks';
import { Lexer, type Token, type Tokens } from 'marked';
import { common, createLowlight } from 'lowlight';
import { CopyButton } from './copy.tsx';
import './markdown.css';

const lowlight = createLowlight(common);

/** Over this many characters a code block is shown plain: highlighting is linear, but a page of it is not free. */
const HIGHLIGHT_MAX_CHARS = 20_000;

/**
 * Memoised on the text: a turn re-renders on every delta streamed into it, and only the frame that grew
 * is lexed and rendered again (an append changes a frame's text in place, so the text is the key).
 */
export const Markdown = memo(function Markdown(props: { text: string }) {
  return <>{blocks(new Lexer({ gfm: true }).lex(props.text))}</>;
});

function blocks(tokens: Token[]): ComponentChildren[] {
  return tokens.map((t, i) => block(t, i));
}

function block(t: Token, key: number): ComponentChildren {
  switch (t.type) {
    case 'space':
      return null;
    case 'heading': {
      const H = `h${Math.min(6, Math.max(3, (t as Tokens.Heading).depth + 2))}` as 'h3';
      return <H key={key} class="md-h">{inlines((t as Tokens.Heading).tokens)}</H>;
    }
    case 'paragraph':
      return <p key={key}>{inlines((t as Tokens.Paragraph).tokens)}</p>;
    case 'code':
      return <CodeBlock key={key} code={(t as Tokens.Code).text} lang={(t as Tokens.Code).lang} />;
    case 'blockquote':
      return <blockquote key={key}>{blocks((t as Tokens.Blockquote).tokens)}</blockquote>;
    case 'hr':
      return <hr key={key} />;
    case 'list': {
      const l = t as Tokens.List;
      const items = l.items.map((it, j) => (
        <li key={j}>
          {it.task && <input type="checkbox" checked={it.checked} disabled aria-label={it.checked ? 'done' : 'to do'} />}
          {it.loose ? blocks(it.tokens) : it.tokens.map((x, k) => (x.type === 'text' && 'tokens' in x && x.tokens ? inlines(x.tokens) : block(x, k)))}
        </li>
      ));
      return l.ordered ? <ol key={key} start={typeof l.start === 'number' ? l.start : undefined}>{items}</ol> : <ul key={key}>{items}</ul>;
    }
    case 'table': {
      const tb = t as Tokens.Table;
      const align = (a: string | null) => (a ? `al-${a}` : undefined);
      return (
        <div key={key} class="md-table">
          <table>
            <thead><tr>{tb.header.map((c, j) => <th key={j} class={align(tb.align[j] ?? null)}>{inlines(c.tokens)}</th>)}</tr></thead>
            <tbody>{tb.rows.map((r, j) => <tr key={j}>{r.map((c, k) => <td key={k} class={align(tb.align[k] ?? null)}>{inlines(c.tokens)}</td>)}</tr>)}</tbody>
          </table>
        </div>
      );
    }
    case 'text':
      return 'tokens' in t && t.tokens ? <p key={key}>{inlines(t.tokens)}</p> : <p key={key}>{(t as Tokens.Text).text}</p>;
    default:
      // html and anything unknown: its source, as text.
      return <p key={key}>{t.raw}</p>;
  }
}

function inlines(tokens: Token[] | undefined): ComponentChildren[] {
  return (tokens ?? []).map((t, i) => inline(t, i));
}

function inline(t: Token, key: number): ComponentChildren {
  switch (t.type) {
    case 'text':
      return 'tokens' in t && t.tokens ? <>{inlines(t.tokens)}</> : (t as Tokens.Text).text;
    case 'escape':
      return (t as Tokens.Escape).text;
    case 'strong':
      return <strong key={key}>{inlines((t as Tokens.Strong).tokens)}</strong>;
    case 'em':
      return <em key={key}>{inlines((t as Tokens.Em).tokens)}</em>;
    case 'del':
      return <del key={key}>{inlines((t as Tokens.Del).tokens)}</del>;
    case 'codespan':
      return <code key={key}>{(t as Tokens.Codespan).text}</code>;
    case 'br':
      return <br key={key} />;
    case 'link': {
      const l = t as Tokens.Link;
      const href = safeHref(l.href);
      return href ? <a key={key} href={href} target="_blank" rel="noopener noreferrer">{inlines(l.tokens)}</a> : <span key={key}>{inlines(l.tokens)}</span>;
    }
    case 'image':
      // Not loaded (img-src is 'self' only): its alt text and address.
      return <span key={key} class="md-image">[{(t as Tokens.Image).text}]({(t as Tokens.Image).href})</span>;
    default:
      return t.raw;
  }
}

/** Only absolute http(s) and mailto links; anything else (javascript:, data:, relative) is dropped. */
export function safeHref(href: string): string | null {
  try {
    const u = new URL(href);
    return u.protocol === 'http:' || u.protocol === 'https:' || u.protocol === 'mailto:' ? u.href : null;
  } catch {
    return null;
  }
}

/** A fenced block: its language (or "text") and a copy button over the code. */
function CodeBlock(props: { code: string; lang?: string }) {
  const lang = props.lang?.trim().split(/\s+/)[0]?.toLowerCase() ?? '';
  const known = lang !== '' && lowlight.registered(lang);
  return (
    <div class="codeblock">
      <div class="code-head"><span>{lang || 'text'}</span><span class="spacer" /><CopyButton text={props.code} label="Copy code" icon={false} /></div>
      {!known || props.code.length > HIGHLIGHT_MAX_CHARS
        ? <pre class="code" data-lang={lang || undefined}><code>{props.code}</code></pre>
        : <Highlighted code={props.code} lang={lang} />}
    </div>
  );
}

function Highlighted(props: { code: string; lang: string }) {
  const { code, lang } = props;
  const spans = useMemo(() => hast(lowlight.highlight(lang, code).children), [lang, code]);
  return <pre class="code hljs" data-lang={lang}><code>{spans}</code></pre>;
}

type HastNode = { type: string; value?: string; tagName?: string; properties?: { className?: string[] | string }; children?: HastNode[] };

/** lowlight's tree (text and spans with classes only) as Preact elements. */
function hast(nodes: HastNode[]): ComponentChildren[] {
  return nodes.map((n, i) => {
    if (n.type === 'text') return n.value ?? '';
    if (n.type === 'element') {
      const cls = n.properties?.className;
      return <span key={i} class={Array.isArray(cls) ? cls.join(' ') : cls}>{hast(n.children ?? [])}</span>;
    }
    return null;
  });
}
