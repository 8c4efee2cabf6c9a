import { GUI_STREAM } from '../../journal/keys.ts';
import type { GuiStore } from '../../projections/gui-store/gui-store.ts';
import type { EventJournal } from '../events/journal.ts';

/** The GUI projection (reads) and the journal (writes). */
export interface GuiDeps {
  gui: GuiStore;
  journal: EventJournal;
}

/*
 * Writes of the GUI store: events on the `__gui__` stream; reads come from the
 * projection (`gui`). Writes that would change nothing append nothing, so a
 * GUI re-saving the same state does not grow the journal. Each check and its
 * append run in one tick (the projection applies synchronously in append()).
 */

export async function setGuiItem(deps: GuiDeps, key: string, value: string): Promise<null> {
  if (deps.gui.get(key) !== value) await deps.journal.append([{ stream: GUI_STREAM, type: 'gui.item_set', payload: { key, value } }]);
  return null;
}

export async function removeGuiItem(deps: GuiDeps, key: string): Promise<null> {
  if (deps.gui.get(key) !== null) await deps.journal.append([{ stream: GUI_STREAM, type: 'gui.item_removed', payload: { key } }]);
  return null;
}

export async function clearGui(deps: GuiDeps): Promise<null> {
  if (deps.gui.length > 0) await deps.journal.append([{ stream: GUI_STREAM, type: 'gui.cleared', payload: {} }]);
  return null;
}
