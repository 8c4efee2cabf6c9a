/**
 * The floor for bench/prompt-latency.ts: the least any Node daemon could do between the bench
 * client and the fixture LLM. Run as `BENCH_DAEMON_ENTRY=bench/lib/null-relay.mjs node --import
 * tsx bench/prompt-latency.ts`. It speaks just enough of the daemon's API for that script (healthz,
 * session create, WS hello/subscribe, prompt POST) and relays each prompt to the fixture and each
 * streamed text chunk to the WS as an `assistant.delta` frame: no journal, no validation, no
 * session state, no prompt building. What it adds over the fixture alone is what the machine
 * (three processes on its CPUs) costs a relay, not the daemon's design.
 */
import { readFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { WebSocketServer } from 'ws';

const config = readFileSync(path.join(process.env.SVC_CODE_HOME, 'config.toml'), 'utf8');
const upstream = new URL(`${/base_url = "([^"]+)"/.exec(config)[1]}/chat/completions`);
const agent = new http.Agent({ keepAlive: true });
const sockets = new Set();
let sessions = 0;

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
  const body = JSON.stringify({ model: 'fixture-model', stream: true, messages: [{ role: 'user', content: text }] });
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
        if (delta) broadcast({ type: 'assistant.delta', session_id: sid, volatile: true, payload: { text: delta } });
      }
    });
    res.on('end', () => broadcast({ type: 'turn.ended', session_id: sid, payload: { reason: 'completed' } }));
  });
  req.end(body);
  answer();
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

server.listen(0, '127.0.0.1', () => process.stdout.write(`listening on http://127.0.0.1:${server.address().port}\n`));
process.on('SIGTERM', () => process.exit(0));
