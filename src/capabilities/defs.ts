import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { exists, onPath } from './checks.ts';

/** One step of a capability: what it checks now, and what installing it does (none: the user must act). */
export interface StepDef {
  id: string;
  optional?: boolean;
  check(dir: string): { ok: boolean; detail?: string };
  install?(dir: string): Promise<void>;
}

export interface CapabilityDef {
  id: string;
  displayName: string;
  description: string;
  version: string;
  platforms: string[];
  /**
   * The daemon's tools that give the agent this capability. None: nothing backs it on any platform, so it
   * reports `unsupported` (supported false) and `:install` answers 40925; installing its steps would claim
   * a state its tools do not have.
   */
  tools: readonly string[];
  steps: StepDef[];
}

const tool = (id: string, names: string[], what: string, optional = false): StepDef => ({
  id, optional,
  check: () => {
    const found = onPath(names);
    return found ? { ok: true, detail: found } : { ok: false, detail: `${what}: install one of ${names.join(', ')} with your package manager` };
  },
});

/** The runtime folder the daemon owns for a capability: `manifest.json` says it is installed and which version. */
const runtime = (version: string, files: Record<string, string> = {}): StepDef => ({
  id: 'runtime',
  check: (dir) => (exists(path.join(dir, 'manifest.json')) ? { ok: true, detail: dir } : { ok: false, detail: `not installed in ${dir}` }),
  install: async (dir) => {
    await mkdir(dir, { recursive: true });
    for (const [name, text] of Object.entries(files)) {
      await mkdir(path.dirname(path.join(dir, name)), { recursive: true });
      await writeFile(path.join(dir, name), text);
    }
    await writeFile(path.join(dir, 'manifest.json'), JSON.stringify({ version, installed_at: new Date().toISOString() }, null, 2));
  },
});

const EXTENSION_MANIFEST = JSON.stringify({
  manifest_version: 3, name: 'svc-code web bridge', version: '0.1.0',
  description: 'Lets the local svc-code daemon read the current tab (load unpacked from this folder)',
  permissions: ['activeTab', 'scripting'], host_permissions: ['http://127.0.0.1/*', 'http://localhost/*'],
  background: { service_worker: 'background.js' },
}, null, 2);
const EXTENSION_BACKGROUND = '// svc-code web bridge: the daemon is reached on loopback; nothing runs until the user loads the extension.\n';

/**
 * The registered capabilities (Part B): computer use and the browser extension (docs/plugins.md "Capabilities").
 * No daemon tool drives a desktop or talks to the extension yet, so both list no tools and report unsupported;
 * their steps say what an install will need once such tools exist.
 */
export const CAPABILITIES: CapabilityDef[] = [
  {
    id: 'svc-cu', displayName: 'Computer use', description: 'Lets the agent take screenshots and drive the mouse and keyboard of this desktop',
    version: '0.1.0', platforms: ['linux', 'darwin'], tools: [],
    steps: [
      {
        id: 'display',
        check: () => {
          if (process.env.SVC_CODE_CAPABILITY_PLATFORM === 'darwin' || (process.platform === 'darwin' && !process.env.SVC_CODE_CAPABILITY_PLATFORM)) return { ok: true, detail: 'macOS window server' };
          const d = process.env.WAYLAND_DISPLAY ? `Wayland ${process.env.WAYLAND_DISPLAY}` : process.env.DISPLAY ? `X11 ${process.env.DISPLAY}` : undefined;
          return d ? { ok: true, detail: d } : { ok: false, detail: 'no graphical session: neither DISPLAY nor WAYLAND_DISPLAY is set for the daemon' };
        },
      },
      tool('screenshot', ['screencapture', 'grim', 'scrot', 'import', 'gnome-screenshot'], 'screenshots'),
      tool('input', ['cliclick', 'xdotool', 'ydotool', 'wtype'], 'mouse and keyboard input'),
      runtime('0.1.0'),
    ],
  },
  {
    id: 'svc-webbridge', displayName: 'Browser extension', description: 'A browser extension through which the agent reads and acts on browser tabs',
    version: '0.1.0', platforms: ['linux', 'darwin', 'win32'], tools: [],
    steps: [
      tool('browser', ['chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable', 'microsoft-edge', 'brave-browser', 'firefox'], 'a supported browser'),
      runtime('0.1.0', { 'extension/manifest.json': EXTENSION_MANIFEST, 'extension/background.js': EXTENSION_BACKGROUND }),
    ],
  },
];
