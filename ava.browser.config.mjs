// `npm run test:browser`: the web UI in a real browser (Debian's chromium driven by playwright-core)
// against the real daemon and the fixture LLM. docs/web-ui.md. Not part of `npm test`'s glob.
export default {
  files: ['test/browser/**/*.browser.ts'],
  extensions: { ts: 'module' },
  nodeArguments: ['--import=tsx'],
  workerThreads: false,
  timeout: '120s',
  concurrency: 1,
  serial: true,
};
