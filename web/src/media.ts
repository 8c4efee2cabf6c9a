import { useEffect, useState } from 'preact/hooks';

/** Whether a media query matches now, following its changes (the window narrowed or widened). */
export function useMedia(query: string): boolean {
  const [on, setOn] = useState(() => matchMedia(query).matches);
  useEffect(() => {
    const m = matchMedia(query);
    const change = () => setOn(m.matches);
    change();
    m.addEventListener('change', change);
    return () => m.removeEventListener('change', change);
  }, [query]);
  return on;
}

/** Below this width the sidebar is a drawer over the chat (style.css has the same breakpoint). */
export const NARROW = '(max-width: 899px)';
/** Below this width the side panel lies over the chat (panels.css has the same breakpoint). */
export const OVERLAY_PANEL = '(max-width: 1099px)';
