/**
 * The floor for bench/prompt-latency.ts: the least any Node daemon could do between the bench
 * client and the fixture LLM. Run as `BENCH_DAEMON_ENTRY=bench/lib/null-relay.mjs node --import
 * tsx bench/prompt-latency.ts`. It speaks just enough of the daemon's API for that script (healthz,
 * session create, WS hello/subscribe, prompt POST) and relays each prompt to the fixture and each
 * streamed text chunk to the WS as an `assistant.delta` frame: no journal, no validation, no
 * session state, no prompt building. What it adds over the fixture alone is what the machine
 * (three processes on its CPUs) costs a relay, not the daemon's design.
 *
 * Two knobs add the work the daemon cannot skip, to price it on its own:
 * - NULL_RELAY_BODY_BYTES=<n>: the model request carries a system message padding it to about n
 *   bytes (the daemon's first request, system prompt and 15 tool schemas, is about 10,100).
 * - NULL_RELAY_JOURNAL=1: each prompt writes one LevelDB batch of 13 JSON records (about 5 KB,
 *   the daemon's prompt.accepted + turn start batch) in SVC_CODE_HOME; its deltas wait until the
 *   batch is on disk, and so does the POST answer (the daemon's delta gate and durable accept).
 */
import { readFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { Level } from 'level';
import { WebSocketServer } from 'ws';

const config = readFileSync(path.join(process.env.SVC_CODE_HOME, 'config.toml'), 'utf8');
const upstream = new URL(`${/base_url = "([^"]+)"/.exec(config)[1]}/chat/completions`);
const agent = new http.Agent({ keepAlive: true });
const sockets = new Set();
let sessions = 0;
const padBytes = Number(process.env.NULL_RELAY_BODY_BYTES ?? 0);
const db = process.env.NULL_RELAY_JOURNAL === '1' ? new Level(path.join(process.env.SVC_CODE_HOME, 'null-relay-db'), { valueEncoding: 'json' }) : null;
let writeSeq = 0;

/** One prompt's records, the sizes the daemon writes for a first turn. */
function promptBatch(sid) {
  const ts = new Date().toISOString();
  const event = (type, payload) => ({ type: 'put', key: `e!${sid}!${String(++writeSeq).padStart(12, '0')}`, value: { type, ts, payload } });
  return [
    event('prompt.accepted', { prompt_id: `prompt_${writeSeq}`, content: [{ type: 'text', text: 'bench prompt' }], overrides: { model: 'fx/model', thinking: 'off' } }),
    event('system_prompt.recorded', { agent_id: 'main', text: 'x'.repeat(1000) }),
    event('turn.started', { turn_id: `turn_${writeSeq}`, agent_id: 'main' }),
    event('message.created', { message: { id: `msg_${writeSeq}`, role: 'user', content: [{ type: 'text', text: 'bench prompt' }] } }),
    event('turn.step.started', { turn_id: `turn_${writeSeq}`, step: 1 }),
    event('event.session.work_changed', { session_id: sid, busy: true }),
    event('event.session.status_changed', { session_id: sid, status: 'busy' }),
    { type: 'put', key: `h!${sid}`, value: { seq: writeSeq, epoch: 'e' } },
    { type: 'put', key: 'h!__global__', value: { seq: writeSeq, epoch: 'e' } },
    { type: 'put', key: `p!session-index!${sid}`, value: { id: sid, title: 'x'.repeat(400), updated_at: ts } },
    { type: 'put', key: `p!usage!${sid}`, value: { input: 0, output: 0, detail: 'x'.repeat(300) } },
    { type: 'put', key: 'p!workspaces!wd', value: { id: 'wd', last_active: ts, detail: 'x'.repeat(200) } },
    { type: 'put', key: `p!messages!m!${sid}!${writeSeq}`, value: { role: 'user', text: 'bench prompt' } },
  ];
}

const json = (res, body) => {
  const text = JSON.stringify(body);
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
};

const broadcast = (frame) => {
  const text = JSON.stringify(frame);
  for (const s of sockets) s.send(text);
};

function relay(sid, text, answer) {
  const messages = [{ role: 'user', content: text }];
  if (padBytes) messages.unshift({ role: 'system', content: 'x'.repeat(padBytes) });
  const body = JSON.stringify({ model: 'fixture-model', stream: true, messages });
  // Deltas wait for the prompt's batch (the daemon's delta gate); without a journal it is open at once.
  let durable = !db;
  const held = [];
  const send = (frame) => (durable ? broadcast(frame) : held.push(frame));
  if (db) {
    db.batch(promptBatch(sid)).then(() => {
      durable = true;
      for (const f of held.splice(0)) broadcast(f);
      answer();
    });
  }
  const req = http.request(upstream, {
    method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), authorization: 'Bearer sk-bench' },
  }, (res) => {
    let rest = '';
    res.setEncoding('utf8');
    res.on('data', (d) => {
      const lines = (rest + d).split('\n');
      rest = lines.pop();
      for (const line of lines) {
        if (!line.startsWith('data: {')) continue;
        const delta = JSON.parse(line.slice(6)).choices?.[0]?.delta?.content;
        if (delta) send({ type: 'assistant.delta', session_id: sid, volatile: true, payload: { text: delta } });
      }
    });
    res.on('end', () => send({ type: 'turn.ended', session_id: sid, payload: { reason: 'completed' } }));
  });
  req.end(body);
  if (!db) answer();
}

const server = http.createServer((req, res) => {
  let raw = '';
  req.setEncoding('utf8');
  req.on('data', (d) => (raw += d));
  req.on('end', () => {
    if (req.url === '/api/v1/healthz') return json(res, { code: 0, data: {} });
    if (req.url === '/api/v1/sessions') return json(res, { code: 0, data: { id: `session_${++sessions}` } });
    const m = /^\/api\/v1\/sessions\/([^/]+)\/prompts$/.exec(req.url);
    if (m) return relay(m[1], JSON.parse(raw).content[0].text, () => json(res, { code: 0, data: {} }));
    res.writeHead(404).end();
  });
});

const wss = new WebSocketServer({ server, path: '/api/v1/ws', perMessageDeflate: false });
wss.on('connection', (socket) => {
  sockets.add(socket);
  socket.on('close', () => sockets.delete(socket));
  socket.on('message', (data) => {
    const f = JSON.parse(String(data));
    socket.send(JSON.stringify({ type: 'ack', id: f.id, code: 0 }));
  });
  socket.send(JSON.stringify({ type: 'server_hello' }));
});

await db?.open();
server.listen(0, '127.0.0.1', () => process.stdout.write(`listening on http://127.0.0.1:${server.address().port}\n`));
process.on('SIGTERM', () => process.exit(0));
