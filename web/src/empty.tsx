// What the main column shows when no session is open: on a first run (no workspace yet) a welcome that says
// what to do; otherwise where to go from here.
import { Icon } from './icons.tsx';
import type { Workspace } from './sidebar/sessions.ts';

export function Welcome(props: { title: string; pickFolder: () => void }) {
  return (
    <div class="empty">
      <section class="welcome" aria-label="Welcome">
        <h1>Welcome to {props.title}</h1>
        <p>A coding agent that works in the folders on this machine. To begin, open a project folder:</p>
        <ol>
          <li>Choose the folder of a project (it becomes a workspace in the sidebar).</li>
          <li>Ask for what you want done; approve the commands and edits it proposes.</li>
          <li>Follow its changes in the <strong>Changes</strong> panel, and its terminal beside the chat.</li>
        </ol>
        <div class="actions">
          <button class="primary" onClick={props.pickFolder}><Icon name="folder" />Choose a folder…</button>
        </div>
        <p class="hint">Or paste a folder's path into the field in the sidebar. <kbd>Ctrl</kbd>+<kbd>Shift</kbd>+<kbd>O</kbd> opens the folder picker from anywhere.</p>
      </section>
    </div>
  );
}

export function NoSession(props: { workspaces: Workspace[]; start: (workspaceId: string) => void }) {
  const few = props.workspaces.slice(0, 4);
  return (
    <div class="empty">
      <section class="welcome" aria-label="No session open">
        <h1>Pick a session, or start a new one</h1>
        <p>Your sessions are in the sidebar, grouped by project folder. A new session starts with a fresh conversation in its folder.</p>
        <div class="actions">
          {few.map((w) => <button key={w.id} onClick={() => props.start(w.id)} title={w.root}><Icon name="plus" />Start in {w.name}</button>)}
        </div>
        <p class="hint"><kbd>Ctrl</kbd>+<kbd>K</kbd> searches every session.</p>
      </section>
    </div>
  );
}
