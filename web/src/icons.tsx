// A few line icons drawn for this UI (24-unit grid, stroked in the current colour): inline SVG, so no font
// or image request and nothing for the CSP to refuse. Decorative: the button or text beside one names it.
import type { ComponentChildren } from 'preact';

const PATHS = {
  sidebar: <><rect x="3.5" y="4.5" width="17" height="15" rx="2.5" /><path d="M9.5 4.5v15" /></>,
  panel: <><rect x="3.5" y="4.5" width="17" height="15" rx="2.5" /><path d="M14.5 4.5v15" /></>,
  plus: <path d="M12 5.5v13M5.5 12h13" />,
  search: <><circle cx="11" cy="11" r="6" /><path d="M15.5 15.5 20 20" /></>,
  sun: <><circle cx="12" cy="12" r="3.8" /><path d="M12 3v2M12 19v2M3 12h2M19 12h2M5.6 5.6l1.4 1.4M17 17l1.4 1.4M5.6 18.4 7 17M17 7l1.4-1.4" /></>,
  moon: <path d="M19.5 14.2A7.6 7.6 0 0 1 9.8 4.5a7.6 7.6 0 1 0 9.7 9.7Z" />,
  settings: <><path d="M4 7.5h9M17 7.5h3M4 16.5h3M11 16.5h9" /><circle cx="15" cy="7.5" r="2" /><circle cx="9" cy="16.5" r="2" /></>,
  pencil: <path d="M5 19h3.5L18.8 8.7a1.8 1.8 0 0 0 0-2.5l-1-1a1.8 1.8 0 0 0-2.5 0L5 15.5V19Z" />,
  archive: <><rect x="3.5" y="5" width="17" height="4" rx="1" /><path d="M5.5 9v9a1.5 1.5 0 0 0 1.5 1.5h10a1.5 1.5 0 0 0 1.5-1.5V9M10 13h4" /></>,
  trash: <path d="M4.5 7h15M9.5 7V5h5v2M6.5 7l.9 11.6A1.5 1.5 0 0 0 8.9 20h6.2a1.5 1.5 0 0 0 1.5-1.4L17.5 7" />,
  copy: <><rect x="8.5" y="8.5" width="11" height="11" rx="2" /><path d="M15.5 5.5v-.5a1.5 1.5 0 0 0-1.5-1.5H6A1.5 1.5 0 0 0 4.5 5v8A1.5 1.5 0 0 0 6 14.5h.5" /></>,
  check: <path d="m5 12.5 4.5 4.5L19 7.5" />,
  chevron: <path d="m9.5 6 6 6-6 6" />,
  folder: <path d="M3.5 7.5A2 2 0 0 1 5.5 5.5h3.6l2 2h7.4a2 2 0 0 1 2 2v7a2 2 0 0 1-2 2h-13a2 2 0 0 1-2-2Z" />,
  branch: <><circle cx="7" cy="6" r="2" /><circle cx="7" cy="18" r="2" /><circle cx="17" cy="8" r="2" /><path d="M7 8v8M17 10c0 3.5-3 4.5-6.5 4.8L7 15.2" /></>,
  down: <path d="M12 5v14M6.5 13.5 12 19l5.5-5.5" />,
  up: <path d="M12 19V5M6.5 10.5 12 5l5.5 5.5" />,
  x: <path d="m6.5 6.5 11 11M17.5 6.5l-11 11" />,
  terminal: <><rect x="3.5" y="4.5" width="17" height="15" rx="2.5" /><path d="m7.5 9.5 3 2.5-3 2.5M12.5 15h4" /></>,
  clip: <path d="m15.5 8.5-6.4 6.4a1.9 1.9 0 0 0 2.7 2.7l6.6-6.6a3.8 3.8 0 0 0-5.4-5.4l-6.7 6.7a5.7 5.7 0 0 0 8.1 8.1l5.1-5.1" />,
  stop: <rect x="7" y="7" width="10" height="10" rx="2" fill="currentColor" />,
  cpu: <><rect x="6.5" y="6.5" width="11" height="11" rx="2" /><path d="M9.5 3.5v3M14.5 3.5v3M9.5 17.5v3M14.5 17.5v3M3.5 9.5h3M3.5 14.5h3M17.5 9.5h3M17.5 14.5h3" /></>,
  spark: <path d="M12 4.5 13.6 10l5.4 2-5.4 2L12 19.5 10.4 14 5 12l5.4-2Z" />,
  refresh: <path d="M19.5 12a7.5 7.5 0 1 1-2.3-5.4M19.5 4.8v4h-4" />,
  more: <><circle cx="6" cy="12" r="1.2" fill="currentColor" /><circle cx="12" cy="12" r="1.2" fill="currentColor" /><circle cx="18" cy="12" r="1.2" fill="currentColor" /></>,
} satisfies Record<string, ComponentChildren>;

export type IconName = keyof typeof PATHS;

export function Icon(props: { name: IconName; size?: number; class?: string }) {
  const size = props.size ?? 16;
  return (
    <svg class={`icon${props.class ? ` ${props.class}` : ''}`} width={size} height={size} viewBox="0 0 24 24" fill="none" stroke="currentColor"
      stroke-width="1.7" stroke-linecap="round" stroke-linejoin="round" aria-hidden="true" focusable="false">
      {PATHS[props.name]}
    </svg>
  );
}
