import * as v from 'valibot';
import { WellFormed } from './common.ts';

/** Largest value accepted, in UTF-8 bytes (browser localStorage quotas are a few MiB per origin). */
export const GUI_VALUE_MAX_BYTES = 1024 * 1024;

/** Core Limits: 1-256 characters (JavaScript string length). */
export const GuiKey = v.pipe(
  v.string('must be a string'),
  v.minLength(1, 'must be 1-256 characters'),
  v.maxLength(256, 'must be 1-256 characters'),
  WellFormed,
);

export const GuiValue = v.pipe(
  v.string('must be a string'),
  v.maxLength(GUI_VALUE_MAX_BYTES, `must be at most ${GUI_VALUE_MAX_BYTES} bytes (UTF-8)`),
  v.maxBytes(GUI_VALUE_MAX_BYTES, `must be at most ${GUI_VALUE_MAX_BYTES} bytes (UTF-8)`),
  v.description(`Opaque string, at most ${GUI_VALUE_MAX_BYTES} bytes in UTF-8.`),
  v.metadata({ 'x-max-bytes': GUI_VALUE_MAX_BYTES }),
);

export const GuiKeyQuery = v.object({ key: GuiKey });
export const GuiKeyBody = v.object({ key: GuiKey });
export const GuiSetItemBody = v.object({ key: GuiKey, value: GuiValue });

export const GuiLength = v.object({ length: v.number() });
export const GuiItem = v.object({ value: v.nullable(v.string()) });
export const GuiNull = v.null();
