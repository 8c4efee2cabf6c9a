import path from 'node:path';
import type { Logger } from '../lib/logger.ts';
import { createFileOnce } from './file.ts';

/** `tui.toml` as first written: every field of Part B "tui.toml" at its default. */
export const TUI_DEFAULTS = `# Terminal UI preferences (Part B "tui.toml"). Created once with the defaults;
# svc-code never rewrites this file: edit it freely.

theme = "auto"
tui_mode = "regular"
render_latex = true
disable_paste_burst = false
cache_expiry_hint = true
disable_feedback_survey = false

[editor]
command = ""

[notifications]
enabled = true
notification_condition = "unfocused"

[upgrade]
auto_install = true

[status_line]
items = []
command = ""
`;

/** Creates `<home>/tui.toml` with the defaults when it does not exist; an existing file is never touched. */
export async function ensureTuiFile(home: string, log: Logger): Promise<void> {
  try {
    await createFileOnce(path.join(home, 'tui.toml'), TUI_DEFAULTS, 0o644);
  } catch (err) {
    log.warn({ err: (err as Error).message }, 'cannot create tui.toml');
  }
}
