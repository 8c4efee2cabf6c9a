// A small, safe markdown subset: fenced code blocks, inline code, paragraphs. Text only: never innerHTML.
export function Markdown(props: { text: string }) {
  const parts = props.text.split(/^```[^\n]*\n?/m);
  return (
    <>
      {parts.map((p, i) => i % 2 === 1
        ? <pre key={i} class="code"><code>{p.replace(/\n$/, '')}</code></pre>
        : p.split(/\n{2,}/).filter((s) => s.trim() !== '').map((para, j) => <p key={`${i}.${j}`}>{inline(para)}</p>))}
    </>
  );
}

function inline(s: string) {
  return s.split(/(`[^`\n]+`)/).map((seg, k) => seg.startsWith('`') && seg.endsWith('`') && seg.length > 1 ? <code key={k}>{seg.slice(1, -1)}</code> : seg);
}
