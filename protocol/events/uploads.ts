import * as v from 'valibot';
import { FileObject } from '../schemas/files.ts';
import { defineEvent } from './define.ts';

/** Uploaded files, on the global stream; internal: clients learn of uploads from the HTTP answers. */

const stored = defineEvent({
  type: 'upload.stored', stream: 'global', durability: 'durable', receivers: 'internal', transcript: 'none',
  summary: 'A file was uploaded (its meta.json)',
  payload: FileObject,
});

const deleted = defineEvent({
  type: 'upload.deleted', stream: 'global', durability: 'durable', receivers: 'internal', transcript: 'none',
  summary: 'An upload was deleted (DELETE /files/{id})',
  payload: v.object({ id: v.string() }),
});

const expired = defineEvent({
  type: 'upload.expired', stream: 'global', durability: 'durable', receivers: 'internal', transcript: 'none',
  summary: 'An upload passed its expires_at and was removed by the sweeper',
  payload: v.object({ id: v.string(), expires_at: v.optional(v.string()) }),
});

export const UPLOAD_EVENTS = [stored, deleted, expired] as const;
