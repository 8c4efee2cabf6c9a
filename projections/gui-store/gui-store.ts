import type { JournalEvent } from '../../journal/types.ts';
import { GUI_STREAM } from '../../journal/keys.ts';
import { known } from '../contract.ts';
import type { Projection, RecordWrite } from '../projection.ts';

/** The GUI key/value store (mirrors browser localStorage), from the `__gui__` stream. */
export class GuiStore implements Projection {
  readonly name = 'gui-store';
  readonly version = 1;
  private items = new Map<string, string>();

  reset(): void {
    this.items.clear();
  }

  load(key: string, value: unknown): void {
    this.items.set(decodeURIComponent(key), value as string);
  }

  apply(event: JournalEvent): RecordWrite[] {
    if (event.stream !== GUI_STREAM) return [];
    const e = known(event);
    switch (e.type) {
      case 'gui.item_set': {
        const { key, value } = e.payload;
        // The record key first: what cannot be stored must not reach memory (encodeURIComponent throws on a lone surrogate).
        const write = { key: encodeURIComponent(key), value };
        this.items.set(key, value);
        return [write];
      }
      case 'gui.item_removed': {
        const { key } = e.payload;
        if (!this.items.delete(key)) return [];
        return [{ key: encodeURIComponent(key), delete: true }];
      }
      case 'gui.cleared': {
        const keys = [...this.items.keys()];
        this.items.clear();
        return keys.map((k) => ({ key: encodeURIComponent(k), delete: true as const }));
      }
      default:
        return [];
    }
  }

  get length(): number {
    return this.items.size;
  }

  get(key: string): string | null {
    return this.items.get(key) ?? null;
  }
}
