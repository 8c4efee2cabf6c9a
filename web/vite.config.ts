import { defineConfig } from 'vite';
import { fileURLToPath } from 'node:url';

// The web UI (docs/web-ui.md): Preact through esbuild's JSX transform, no plugin; built into dist/web,
// which the daemon serves (src/http/static.ts). Hashed names under assets/ are cached as immutable.
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/',
  logLevel: 'warn',
  esbuild: { jsx: 'automatic', jsxImportSource: 'preact' },
  build: {
    outDir: fileURLToPath(new URL('../dist/web', import.meta.url)),
    emptyOutDir: true,
    assetsDir: 'assets',
    target: 'es2022',
    // No inline script or style in index.html: the CSP allows 'self' only.
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    reportCompressedSize: false,
  },
});
