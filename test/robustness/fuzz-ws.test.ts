import test from 'ava';
import WebSocket from 'ws';
import { tempDir } from '../helpers/fs.ts';
import { serverFor } from '../helpers/server.ts';
import { until } from '../helpers/wait.ts';
import { NASTY_NUMBERS, NASTY_STRINGS, deepJson, otherType, pick, prng, sample, soleType, type FuzzContext } from './fuzz-values.ts';
import { deref, type Json } from './schema-walk.ts';

/**
 * Malformed WebSocket client frames, one type at a time, from the payload
 * schemas of the daemon's own /asyncapi.json (docs/robustness.md). Same seed
 * and case count variables as the HTTP suite.
 */
const SEED = Number(process.env.SVC_FUZZ_SEED ?? 1);
const CASES = Number(process.env.SVC_FUZZ_CASES ?? 24);

interface FrameCase { label: string; data: string | Buffer; mustFail: boolean }

/** Client frame types and their payload schemas, as /asyncapi.json describes them. */
function clientFrames(doc: Json): Array<{ type: string; payload: Json }> {
  const refs: Json[] = doc.operations.receiveClientFrames.messages;
  return refs.map((r) => {
    const name = String(r.$ref).split('/').pop()!;
    const msg = doc.components.messages[name];
    return { type: name, payload: msg.payload.properties.payload };
  });
}

function casesFor(type: string, schema: Json, ctx: FuzzContext, rng: () => number, n: number): FrameCase[] {
  const base = sample(schema, schema, ctx) as Record<string, unknown>;
  const frame = (payload: unknown, id: unknown = `f${Math.floor(rng() * 1e9)}`) => JSON.stringify({ type, id, payload });
  const s = deref(schema, schema);
  const required: string[] = s.required ?? [];
  const gens: Array<() => FrameCase> = [
    () => ({ label: 'payload not an object', data: frame(pick(rng, ['x', 1, true, [1]])), mustFail: required.length > 0 }),
    () => ({ label: 'payload missing', data: JSON.stringify({ type, id: 'm' }), mustFail: required.length > 0 }),
    () => ({ label: 'extra and __proto__ keys', data: frame(base).replace('"payload":{', '"payload":{"__proto__":{"polluted":1},"extra":[1],'), mustFail: false }),
    () => ({ label: 'deep payload', data: frame('__deep__').replace('"__deep__"', deepJson(10_000)), mustFail: required.length > 0 }),
    () => ({ label: 'odd id', data: frame(base, pick(rng, [{ o: 1 }, [1], 'i'.repeat(100_000), true])), mustFail: true }),
    () => ({ label: 'NUL in type', data: JSON.stringify({ type: `${type}\u0000`, id: 'n', payload: base }), mustFail: true }),
  ];
  for (const [k, sub] of Object.entries<Json>(s.properties ?? {})) {
    const t = soleType(sub, schema);
    const p = deref(sub, schema);
    if (required.includes(k)) gens.push(() => ({ label: `missing ${k}`, data: frame({ ...base, [k]: undefined }), mustFail: true }));
    if (t) gens.push(() => ({ label: `wrong type ${k}`, data: frame({ ...base, [k]: otherType(t, rng) }), mustFail: true }));
    // Frames over 1 MiB are refused by the transport (close 1009), so only bounds below that are probed here.
    if (t === 'string' && typeof p.maxLength === 'number' && p.maxLength < 512 * 1024) gens.push(() => ({ label: `over maxLength ${k}`, data: frame({ ...base, [k]: 'x'.repeat(p.maxLength + 1) }), mustFail: true }));
    if (t === 'string') gens.push(() => ({ label: `nasty ${k}`, data: frame({ ...base, [k]: pick(rng, NASTY_STRINGS) }), mustFail: false }));
    if (t === 'integer' || t === 'number') {
      gens.push(() => {
        const x = pick(rng, NASTY_NUMBERS);
        const bad = typeof x !== 'number' || (t === 'integer' && !Number.isInteger(x)) || x > (p.maximum ?? Infinity) || x < (p.minimum ?? -Infinity);
        return { label: `number ${k}=${String(x)}`, data: frame({ ...base, [k]: x }), mustFail: bad };
      });
    }
    if (t === 'array' && typeof p.maxItems === 'number') {
      gens.push(() => ({ label: `over maxItems ${k}`, data: frame({ ...base, [k]: Array.from({ length: p.maxItems + 1 }, (_, i) => `s${i}`) }), mustFail: true }));
    }
    gens.push(() => ({ label: `deep ${k}`, data: frame({ ...base, [k]: '__deep__' }).replace('"__deep__"', deepJson(10_000)), mustFail: t !== undefined }));
  }
  return Array.from({ length: n }, (_, i) => gens[i < gens.length ? i : Math.floor(rng() * gens.length)]());
}

/** Frames that are not a frame of any type. */
const GARBAGE: FrameCase[] = [
  { label: 'not JSON', data: '{"type":', mustFail: true },
  { label: 'a JSON array', data: '[1,2]', mustFail: true },
  { label: 'a JSON string', data: '"subscribe"', mustFail: true },
  { label: 'unknown type', data: JSON.stringify({ type: 'no_such_frame', id: 'u', payload: {} }), mustFail: true },
  { label: 'type not a string', data: JSON.stringify({ type: 7, id: 't', payload: {} }), mustFail: true },
  { label: 'invalid UTF-8 (binary frame)', data: Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d]), mustFail: true },
  { label: 'nesting 100,000 deep', data: '['.repeat(100_000) + ']'.repeat(100_000), mustFail: true },
  { label: 'empty', data: '', mustFail: true },
];

test('every client frame type: malformed frames each get one ack with a 4xxxx code, never 5xxxx; the socket survives', async (t) => {
  const s = await serverFor(t);
  const root = await tempDir('svc-code-fuzz-ws-');
  const sessionId = (await s.post('/api/v1/sessions', { metadata: { cwd: root } })).data.id;
  const ctx: FuzzContext = { sessionId, workspaceId: '', root, path: 'a.txt' };
  const doc = await (await fetch(`${s.baseUrl}/asyncapi.json`, { headers: { Authorization: `Bearer ${s.token}` } })).json();
  const socket = new WebSocket(`${s.baseUrl.replace(/^http/, 'ws')}/api/v1/ws`, { headers: { Authorization: `Bearer ${s.token}` } });
  const acks: any[] = [];
  socket.on('message', (d) => {
    const f = JSON.parse(String(d));
    if (f.type === 'ack') acks.push(f);
  });
  await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
  const t0 = acks.length;
  const ackOf = async (data: string | Buffer): Promise<any> => {
    const n = acks.length;
    socket.send(data);
    await until(() => {
      if (acks.length > n) return true;
      if (socket.readyState !== WebSocket.OPEN) throw new Error(`no ack (socket ${socket.readyState})`);
      return false;
    }, 5000, 'an ack');
    return acks[n];
  };
  const rng = prng(SEED);
  const findings: string[] = [];
  let sent = 0;
  const frames = clientFrames(doc);
  const all = [...GARBAGE.map((c) => ['(any)', c] as const), ...frames.flatMap((f) => casesFor(f.type, f.payload, ctx, rng, CASES).map((c) => [f.type, c] as const))];
  for (const [type, c] of all) {
    sent++;
    if (process.env.SVC_FUZZ_REPORT) t.log(`${type} [${c.label}]`);
    const ack = await ackOf(c.data);
    if (typeof ack.code !== 'number' || ack.code >= 50000) findings.push(`${type} [${c.label}] code ${ack.code}: ${ack.msg}`);
    else if (c.mustFail && ack.code < 40000) findings.push(`${type} [${c.label}] certainly invalid, answered ${ack.code}`);
    else if (ack.code === 40001 && !Array.isArray(ack.details)) findings.push(`${type} [${c.label}] 40001 without details`);
  }
  // A burst: every frame answered, in order.
  const before = acks.length;
  for (let i = 0; i < 1000; i++) socket.send(JSON.stringify({ type: 'subscribe', id: `b${i}`, payload: { session_ids: [sessionId] } }));
  socket.send(JSON.stringify({ type: 'client_hello', id: 'last', payload: { client_id: 'fuzz' } }));
  await until(() => {
    if (acks.some((a) => a.id === 'last')) return true;
    if (socket.readyState !== WebSocket.OPEN) throw new Error('the burst was not answered');
    return false;
  }, 30_000, 'the burst to be answered');
  t.is(acks[acks.length - 1].id, 'last');
  t.is(acks[acks.length - 1].code, 0);
  t.deepEqual(acks.slice(before, before + 1000).map((a) => a.id), Array.from({ length: 1000 }, (_, i) => `b${i}`));
  t.is(socket.readyState, WebSocket.OPEN);
  t.is(({} as Record<string, unknown>).polluted, undefined);
  t.is(acks.length - t0, sent + 1001);
  t.log(`seed ${SEED}: ${sent} malformed frames over ${frames.length} frame types, then a burst of 1,000; ${findings.length} findings`);
  for (const f of findings.slice(0, 40)) t.log(f);
  t.deepEqual(findings, []);
  socket.close();
});
