import { GUI_STREAM } from '../../journal/keys.ts';
import type { AppContext } from '../app/context.ts';
import { GuiEvents } from '../events/types.ts';

/*
 * Writes of the GUI store: events on the `__gui__` stream; reads come from the
 * projection (app.gui). Writes that would change nothing append nothing, so a
 * GUI re-saving the same state does not grow the journal. Each check and its
 * append run in one tick (the projection applies synchronously in append()).
 */

export async function setGuiItem(app: AppContext, key: string, value: string): Promise<null> {
  if (app.gui.get(key) !== value) await app.journal.append([{ stream: GUI_STREAM, type: GuiEvents.itemSet, payload: { key, value } }]);
  return null;
}

export async function removeGuiItem(app: AppContext, key: string): Promise<null> {
  if (app.gui.get(key) !== null) await app.journal.append([{ stream: GUI_STREAM, type: GuiEvents.itemRemoved, payload: { key } }]);
  return null;
}

export async function clearGui(app: AppContext): Promise<null> {
  if (app.gui.length > 0) await app.journal.append([{ stream: GUI_STREAM, type: GuiEvents.cleared, payload: {} }]);
  return null;
}
