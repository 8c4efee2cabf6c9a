import path from 'node:path';

/**
 * Where a journal slot's search index persists (docs/search.md "Persistence"). Its own module: the instances of a
 * home remove an adopted slot's index without loading the search service (print mode never runs one).
 */
export function searchIndexDir(home: string, slot: string): string {
  return path.join(home, 'search', slot);
}
