export { createModelClient } from './factory.ts';
export { classifyError, WireConfigError } from './errors.ts';
export * from './types.ts';
