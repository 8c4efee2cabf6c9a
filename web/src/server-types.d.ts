// Types web/src reads from protocol/ reach schemas that check paths with node:path on the server. The web build never
// bundles them (type imports are erased), and web/ compiles without Node's types (no Buffer, process, ...), so this
// names the one member those schemas use; test/architecture/web.test.ts refuses a web/src import of any node: module.
declare module 'node:path' {
  const path: { isAbsolute(p: string): boolean };
  export default path;
}
