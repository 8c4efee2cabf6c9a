import test, { type ExecutionContext } from 'ava';
import * as check from '../helpers/smoke-checks.ts';
import { startSmoke, type Smoke } from '../helpers/smoke.ts';

// The artifact users run: dist/ built by the build `npm ci` runs and started with package.json's
// start command (node, no tsx), exercised through real HTTP and WebSocket. A capability the
// daemon gains gets one line here (its check in helpers/smoke-checks.ts), so a file the build
// leaves out, or a build step it skips, fails CI.

let d: Smoke;

test.before(async () => {
  d = await startSmoke();
});

test.after.always(() => d?.cleanup());

const CAPABILITIES: Array<[string, (d: Smoke, t: ExecutionContext) => Promise<void>]> = [
  ['dist/ is built from these sources and holds every non-TypeScript file they read', check.buildCurrentWithAssets],
  ['GET /api/v1/healthz answers without a token', check.healthz],
  ['GET /api/v1/meta needs the token and reports this package version', check.meta],
  ['GET /openapi.json', check.openapi],
  ['GET /asyncapi.json', check.asyncapi],
  ['the WebSocket says server_hello', check.websocketHello],
  ['the model directory offline: the snapshot answers, an unknown id is 40417, an import works', check.modelDirectoryOffline],
  ['a workspace and a session are created', check.workspaceAndSession],
  ['a prompt streams from the fixture LLM; its Write call runs once approved over REST', check.promptWithApprovedToolCall],
  ['a session exported, imported back with svc-code import (a new id), and both found by search', check.exportImportSearch],
  ['that export replayed by svc-code replay in a temp home, the model answering from its journal: no divergence', check.replayExport],
  ['a terminal echoes over terminal_* frames', check.terminalEcho],
  ['the builtin skills are listed', check.builtinSkills],
  ['a plugin folder installs over REST; its skill joins the session, leaves when disabled; the plugin is removed', check.pluginInstall],
  ['an MCP stdio server added over /api/v2/mcp is probed, then started with a session (its tools in GET /tools)', check.mcpStdioServer],
];

for (const [name, run] of CAPABILITIES) test.serial(name, (t) => run(d, t));

test.serial('SIGTERM: a clean exit and the instance file removed', (t) => check.sigtermShutdown(d, t));
