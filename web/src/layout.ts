import { useState } from 'preact/hooks';
import { NARROW, useMedia } from './media.ts';
import { usePref } from './prefs.ts';

/**
 * The page's layout: the side panel (open, tab, width: preferences) and the sidebar, a column the reader may fold
 * away on a wide window (kept), a drawer over the chat on a narrow one.
 */
export function useLayout() {
  const [panelOpen, setPanelOpen] = usePref('panel.open', '0');
  const showFiles = panelOpen === '1';
  const setShowFiles = (on: boolean) => setPanelOpen(on ? '1' : '0');
  const [panelTab, setPanelTab] = usePref('panel.tab', 'files');
  const [panelWidth, setPanelWidth] = usePref('panel.width', '380');
  const narrow = useMedia(NARROW);
  const [sidebarPref, setSidebarPref] = usePref('sidebar.open', '1');
  const [drawer, setDrawer] = useState(false);
  const sidebarShown = narrow ? drawer : sidebarPref === '1';
  const toggleSidebar = () => (narrow ? setDrawer(!drawer) : setSidebarPref(sidebarPref === '1' ? '0' : '1'));
  return { showFiles, setShowFiles, panelTab, setPanelTab, panelWidth, setPanelWidth, narrow, setDrawer, sidebarShown, toggleSidebar };
}
