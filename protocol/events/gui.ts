import * as v from 'valibot';
import { defineEvent } from './define.ts';

/** The GUI key/value store, on its own stream; no client hears of it (it reads the store over REST). */

const itemSet = defineEvent({
  type: 'gui.item_set', stream: 'gui', durability: 'durable', receivers: 'internal', transcript: 'none',
  summary: 'A key was set',
  payload: v.object({ key: v.string(), value: v.string() }),
});

const itemRemoved = defineEvent({
  type: 'gui.item_removed', stream: 'gui', durability: 'durable', receivers: 'internal', transcript: 'none',
  summary: 'A key was removed',
  payload: v.object({ key: v.string() }),
});

const cleared = defineEvent({
  type: 'gui.cleared', stream: 'gui', durability: 'durable', receivers: 'internal', transcript: 'none',
  summary: 'Every key was removed',
  payload: v.object({}),
});

export const GUI_EVENTS = [itemSet, itemRemoved, cleared] as const;
