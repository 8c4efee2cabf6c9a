// The Changes panel: the session folder's uncommitted changes against HEAD, as the daemon's git sees them
// (POST fs:git_status for the branch and each path's state, POST fs:diff of `.` for the unified diff of every
// change, untracked files against /dev/null), one section per file. Read again when a turn ends, and on ↻.
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, ApiError, type Socket } from '../api.ts';
import { Icon } from '../icons.tsx';

type GitStatus = { branch: string | null; ahead: number; behind: number; entries: Record<string, string>; additions: number; deletions: number };
type Line = { kind: 'add' | 'del' | 'ctx' | 'hunk' | 'meta'; text: string };
type FileDiff = { path: string; lines: Line[]; add: number; del: number };

/** Files over this many diff lines start closed (a click opens them). */
const OPEN_LINES = 400;
const LETTER: Record<string, string> = { modified: 'M', added: 'A', deleted: 'D', renamed: 'R', untracked: 'U', conflicted: 'C' };
const HEADER = /^(index |--- |\+\+\+ |new file mode|deleted file mode|old mode|new mode|similarity index|rename from|rename to|copy from|copy to|Binary files)/;

/** A unified diff of many files (`diff --git` sections) as one entry per file. */
export function splitDiff(text: string): FileDiff[] {
  const out: FileDiff[] = [];
  let cur: FileDiff | null = null;
  for (const line of text.split('\n')) {
    if (line.startsWith('diff --git ')) {
      const m = / b\/(.+)$/.exec(line);
      cur = { path: m?.[1] ?? line.slice(11), lines: [], add: 0, del: 0 };
      out.push(cur);
      continue;
    }
    if (!cur) continue;
    if (line.startsWith('+++ b/')) cur.path = line.slice(6);
    if (line.startsWith('Binary files')) cur.lines.push({ kind: 'meta', text: 'Binary file changed' });
    if (HEADER.test(line)) continue;
    if (line.startsWith('@@')) cur.lines.push({ kind: 'hunk', text: line });
    else if (line.startsWith('+')) { cur.lines.push({ kind: 'add', text: line }); cur.add++; }
    else if (line.startsWith('-')) { cur.lines.push({ kind: 'del', text: line }); cur.del++; }
    else if (line.startsWith('\\')) cur.lines.push({ kind: 'meta', text: line });
    else if (line !== '' || cur.lines.length) cur.lines.push({ kind: 'ctx', text: line });
  }
  for (const f of out) while (f.lines.at(-1)?.kind === 'ctx' && f.lines.at(-1)!.text === '') f.lines.pop();
  return out;
}

export function ChangesPanel(props: { sid: string; socket: Socket; onError: (e: unknown) => void }) {
  const { sid } = props;
  const [status, setStatus] = useState<GitStatus | null>(null);
  const [files, setFiles] = useState<FileDiff[]>([]);
  const [truncated, setTruncated] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const [open, setOpen] = useState<Record<string, boolean>>({});
  const seq = useRef(0);
  const load = async () => {
    const n = ++seq.current;
    try {
      const [st, d] = await Promise.all([
        api<GitStatus>('POST', `/api/v1/sessions/${sid}/fs:git_status`, {}),
        api<{ diff: string; truncated: boolean }>('POST', `/api/v1/sessions/${sid}/fs:diff`, { path: '.' }),
      ]);
      if (n !== seq.current) return;
      setStatus(st);
      setFiles(splitDiff(d.diff));
      setTruncated(d.truncated);
      setProblem(null);
    } catch (e) {
      if (n !== seq.current) return;
      if (e instanceof ApiError && e.code === 40908) return setProblem('This folder is not a git repository, so there is nothing to compare against.');
      props.onError(e);
    }
  };
  useEffect(() => {
    setStatus(null);
    setFiles([]);
    setOpen({});
    void load();
    // A turn that ended may have changed files: read again (a burst of ops reads once).
    let timer: number | undefined;
    const off = props.socket.listen((f) => {
      if (f.type !== 'transcript.ops' || f.session_id !== sid) return;
      const ended = f.payload.ops.some((o) => o.op === 'turn.upsert' && o.turn.state !== 'running');
      if (!ended) return;
      clearTimeout(timer);
      timer = window.setTimeout(() => void load(), 300);
    });
    return () => { off(); clearTimeout(timer); };
  }, [sid]);

  const entries = status ? Object.entries(status.entries).filter(([, s]) => s !== 'ignored') : [];
  const stateOf = (path: string) => status?.entries[path] ?? (entries.find(([p]) => path.endsWith(p))?.[1] ?? 'modified');
  const big = files.reduce((n, f) => n + f.lines.length, 0) > OPEN_LINES;
  return (
    <section class="panel changes" aria-label="Changes">
      <div class="panel-head">
        <strong>Changes</strong>
        {status?.branch && <span class="chip" title="git branch"><Icon name="branch" /><span>{status.branch}</span></span>}
        <span class="spacer" />
        <button class="icon" aria-label="Refresh changes" title="Read the changes again" onClick={() => void load()}><Icon name="refresh" size={15} /></button>
      </div>
      {problem && <p class="muted">{problem}</p>}
      {status && !problem && <Summary status={status} changed={entries.length} truncated={truncated} />}
      {files.map((f) => {
        const isOpen = open[f.path] ?? !big;
        return <FileRow key={f.path} f={f} state={stateOf(f.path)} isOpen={isOpen} toggle={() => setOpen({ ...open, [f.path]: !isOpen })} />;
      })}
    </section>
  );
}

function Summary(props: { status: GitStatus; changed: number; truncated: boolean }) {
  const { status, changed } = props;
  return (
    <div class="summary">
      {changed === 0
        ? <span>No uncommitted changes{status.branch ? ` on ${status.branch}` : ''}.</span>
        : <span>{changed} file{changed === 1 ? '' : 's'} changed · <span class="diffstat"><span class="plus">+{status.additions}</span> <span class="minus">−{status.deletions}</span></span></span>}
      {(status.ahead > 0 || status.behind > 0) && <span>{status.ahead > 0 ? `${status.ahead} ahead` : ''}{status.ahead > 0 && status.behind > 0 ? ', ' : ''}{status.behind > 0 ? `${status.behind} behind` : ''}</span>}
      {props.truncated && <span>(the diff was cut: too large)</span>}
    </div>
  );
}

function FileRow(props: { f: FileDiff; state: string; isOpen: boolean; toggle: () => void }) {
  const { f, state: st, isOpen } = props;
  return (
    <div class="file">
      <button aria-expanded={isOpen} onClick={props.toggle} title={`${f.path} (${st})`}>
        <Icon name="chevron" size={13} class="caret" />
        <span class={`fc-status ${st}`} title={st}>{LETTER[st] ?? 'M'}</span>
        <span class="path"><bdi>{f.path}</bdi></span>
        <span class="diffstat"><span class="plus">+{f.add}</span> <span class="minus">−{f.del}</span></span>
      </button>
      {isOpen && (
        <pre class="diff" aria-label={`changes to ${f.path}`}>
          {f.lines.map((l, i) => <div key={i} class={l.kind}>{l.text}</div>)}
        </pre>
      )}
    </div>
  );
}
