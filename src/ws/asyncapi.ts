import type * as v from 'valibot';
import { schemaToJson } from '../../protocol/json-schema.ts';
import type { EventDef } from '../../protocol/events/define.ts';
import { eventDefs } from '../../protocol/events/registry.ts';
import { wirePayloadSchema } from '../../protocol/events/wire.ts';
import {
  ClientFrame, ClientPayloads, ClientHelloAckPayload, SubscribeAckPayload, TerminalAttachAckPayload, TerminalDetachAckPayload, TerminalInputAckPayload,
  SubscribeV2AckPayload, TerminalResizeAckPayload, TerminalCloseAckPayload, UnsubscribeAckPayload, UnsubscribeV2AckPayload,
} from '../../protocol/ws/client-frames.ts';
import {
  AckFrame, EventFrame, ResyncRequiredFrame, ServerHelloFrame, TerminalExitFrame, TerminalOutputFrame, TranscriptOpsFrame, TranscriptResetFrame, VolatileFrame,
} from '../../protocol/ws/server-frames.ts';
import { GLOBAL_SESSION_ID } from './server-frames.ts';

type Json = Record<string, any>;
const CHANNEL = '#/channels/events';

const DESCRIPTION = [
  'WebSocket event stream of svc-code (Core "Events"). Written from the server\'s point of view: `receive` = client -> server, `send` = server -> client.',
  '',
  'Authentication at the upgrade: `Authorization: Bearer <token>` or the subprotocol `svc-code.bearer.<token>` (selected in the handshake when offered). ' +
    'Refusals are plain HTTP responses carrying the usual envelope: 401 (40101), 429 (42901, auth-failure ban), 403 (browser Origin not allowed), 404 (any other upgrade path).',
  '',
  'The server never sends heartbeats and never closes idle connections.',
  '',
  'Ordering of a `subscribe` with `cursors`: the `ack` first, then per cursor either the replayed durable events (seq+1..head, oldest first) ' +
    'or one `resync_required`, then live events. Live events committed while a replay is read are held and released after it with no duplicate and no gap. ' +
    'Volatile frames held meanwhile are released only when not older than the last replayed event. Cursors for sessions not listed in `session_ids` are ignored.',
  '',
  'Slow consumers: the server never queues without bound. When more than the high-water mark (8 MiB by default; env SVC_CODE_WS_MAX_BUFFERED_BYTES) is ' +
    'queued for one client (socket buffer plus events held behind a replay), it sends that client nothing more and closes the connection with code 1013 ' +
    '("try again later") behind the frames already queued; a client that does not read its close frame within 10 s is disconnected. Nothing is dropped ' +
    'silently: the client reconnects, subscribes with its last applied cursors and the server replays the gap from the journal (or sends resync_required). ' +
    'Other clients are never delayed by a slow one. Replays are paced by the socket (they wait for it to drain).',
  '',
  'Terminals (docs/terminals.md): open one with POST /api/v1/sessions/{session_id}/terminals, then `terminal_attach` it. The ack comes first, then the ' +
    'scrollback (last 256 Ki characters) as `terminal_output` frames with `replay: true`, then live `terminal_output` frames (batched: at most one per 4 ms ' +
    'or per 16 KiB) and finally `terminal_exit`. Output goes only to attached connections, is never journaled and obeys the slow-consumer policy above. ' +
    'Offsets count UTF-16 code units of output since the terminal started; re-attach with `since` = offset + data.length of the last frame held to get only ' +
    'what was missed (while the scrollback still holds it). Lifecycle facts are session events: terminal.opened, terminal.exited, terminal.closed. ' +
    'On non-loopback binds without --allow-remote-terminals, every terminal_* frame is answered with ack 40001.',
  '',
  'Transcript channel (docs/websocket.md): `subscribe_v2 {session_id, transcript: {<agent_id>|*: off|turn|block|delta}, transcript_since?}`. After the ack, ' +
    'every agent with a non-off grade (explicit keys; `*` = every agent of the roster and agents spawned later) gets a baseline: with `transcript_since[agent]` ' +
    'still inside the op journal (the agent\'s last 2000 batches, at most 256 KiB; as GET /transcript/ops complete:true) the missed `transcript.ops` batches, else one ' +
    '`transcript.reset {agent_id, seq, snapshot, has_more_older}`. Then live `transcript.ops {agent_id, seq, ops}` with the ops of spec/clients.md C ' +
    '(docs/transcript.md "Ops"): one batch per durable event of the agent that its grade carries; grade `delta` adds the batches of its streamed deltas, of its running tools\' progress and (main) of background task output ' +
    '(`volatile: true`; later deltas of a step merged: ~192-character chunks or every 64 ms; a streamed tool frame re-sent at most every length/32 ms). `seq`: one counter per (session, agent), +1 per batch, delta batches included, shared ' +
    'with GET /transcript `seq` and the reset `seq`. Delta frames (assistant.delta, thinking.delta, tool.call.delta) are coalesced the same way on the legacy ' +
    'channel: the first of a step at once, later ones merged (text concatenated, the first offset kept). An agent with a non-off grade gets no legacy session ' +
    'event on that connection (events without ' +
    '`agent_id` count as `main`\'s); other agents\' legacy events still flow to a plain `subscribe`. `unsubscribe_v2` detaches listed agents or the whole session.',
  '',
  'Close codes: 1001 server shutdown; 1011 replay or transcript baseline read failed (reconnect with cursors); 1013 slow consumer.',
].join('\n');

function json(schema: v.GenericSchema<any, any>): Json {
  return schemaToJson(schema);
}

function message(name: string, summary: string, payload: Json, description?: string): Json {
  return { name, title: name, summary, ...(description ? { description } : {}), contentType: 'application/json', payload };
}

/** A client frame: the envelope with its `type` fixed and its payload schema. */
function clientMessage(type: keyof typeof ClientPayloads, summary: string): Json {
  const frame = json(ClientFrame);
  frame.properties = { ...frame.properties, type: { const: type }, payload: json(ClientPayloads[type]) };
  frame.required = ['type', 'payload'];
  frame.title = `${type} frame`;
  return message(type, summary, frame);
}

/** A durable event: the event frame envelope with `type` (and for globals `session_id`) fixed. */
function eventMessage(def: EventDef): Json {
  const global = def.stream !== 'session';
  const frame = json(EventFrame);
  frame.properties = { ...frame.properties, type: { const: def.type }, payload: json(wirePayloadSchema(def, !global)) };
  if (global) frame.properties.session_id = { const: GLOBAL_SESSION_ID };
  const description = def.receivers === 'broadcast'
    ? global ? 'Global: sent to every connection, no subscription needed.'
      : 'Sent to every connection, no subscription needed, stamped with the session\'s own `session_id`, `seq` and `epoch` (journaled on its session stream, replayed with it).'
    : 'Session: sent to subscribers of the session.';
  return message(def.type, def.summary, frame, description);
}

function messages(): Json {
  const out: Json = {
    server_hello: message('server_hello', 'First frame of every connection', json(ServerHelloFrame)),
    ack: message('ack', 'Answer to one client frame', json(AckFrame),
      'Codes: 0; 40001 malformed JSON, unknown type, invalid payload (details lists fields); ' +
        '40401 subscribe / subscribe_v2 named unknown sessions (details.not_found; for subscribe the known ones are subscribed); 40901 sessions held by another instance (details.held_by_other_instance). ' +
        '40414 terminal_* frame naming an unknown terminal; 40001 terminal_input / terminal_resize on an exited terminal. ' +
        `Payloads: subscribe ${JSON.stringify(json(SubscribeAckPayload))}, unsubscribe ${JSON.stringify(json(UnsubscribeAckPayload))}, client_hello ${JSON.stringify(json(ClientHelloAckPayload))}, ` +
        `terminal_attach ${JSON.stringify(json(TerminalAttachAckPayload))}, terminal_detach ${JSON.stringify(json(TerminalDetachAckPayload))}, ` +
        `terminal_input ${JSON.stringify(json(TerminalInputAckPayload))}, terminal_resize ${JSON.stringify(json(TerminalResizeAckPayload))}, ` +
        `terminal_close ${JSON.stringify(json(TerminalCloseAckPayload))}, ` +
        `subscribe_v2 ${JSON.stringify(json(SubscribeV2AckPayload))}, unsubscribe_v2 ${JSON.stringify(json(UnsubscribeV2AckPayload))}.`),
    subscribe: clientMessage('subscribe', 'Subscribe to sessions; cursors replay missed durable events'),
    unsubscribe: clientMessage('unsubscribe', 'Drop subscriptions'),
    client_hello: clientMessage('client_hello', 'Handshake (sets has_client_hello)'),
    subscribe_v2: clientMessage('subscribe_v2', 'Transcript channel: per-agent grades; baseline (reset or missed ops), then live ops'),
    unsubscribe_v2: clientMessage('unsubscribe_v2', 'Detach transcript streams of listed agents or the whole session'),
    'transcript.reset': message('transcript.reset', 'Baseline snapshot of one agent (subscribe_v2)', json(TranscriptResetFrame)),
    'transcript.ops': message('transcript.ops', 'Incremental op batch of one agent (subscribe_v2)', json(TranscriptOpsFrame)),
    terminal_attach: clientMessage('terminal_attach', 'Receive a terminal\'s output: scrollback replay from `since`, then live output'),
    terminal_detach: clientMessage('terminal_detach', 'Stop receiving a terminal\'s output'),
    terminal_input: clientMessage('terminal_input', 'Write to a terminal (keys, paste)'),
    terminal_resize: clientMessage('terminal_resize', 'Resize a terminal (SIGWINCH to its foreground job)'),
    terminal_close: clientMessage('terminal_close', 'Kill a terminal (as POST …/terminals/{terminal_id}:close)'),
    terminal_output: message('terminal_output', 'Terminal output, to attached connections', json(TerminalOutputFrame)),
    terminal_exit: message('terminal_exit', 'A terminal\'s process ended, to attached connections', json(TerminalExitFrame)),
    event: message('event', 'Any durable event', json(EventFrame)),
    volatile_event: message('volatile_event', 'Any volatile event', json(VolatileFrame),
      'Volatile frames (`*.delta`, `tool.progress`, `shell.*`) go to subscribers only; compare `offset` with the accumulated text length: lower = duplicate, higher = gap (reload the snapshot).'),
    resync_required: message('resync_required', 'A cursor cannot be replayed', json(ResyncRequiredFrame)),
  };
  for (const d of [...BROADCAST, ...TO_SUBSCRIBERS]) out[d.type] = d.durability === 'volatile' ? volatileMessage(d) : eventMessage(d);
  return out;
}

/** Events clients receive, from the registry (internal ones are left out). */
const BROADCAST = [...eventDefs()].filter((d) => d.receivers === 'broadcast');
const TO_SUBSCRIBERS = [...eventDefs()].filter((d) => d.receivers === 'subscribers');

/** A volatile event: the volatile frame envelope with `type` fixed; `offset` is on the frame of events whose payload has one. */
function volatileMessage(def: EventDef): Json {
  const frame = json(VolatileFrame);
  const payload = json(wirePayloadSchema(def, true));
  frame.properties = { ...frame.properties, type: { const: def.type }, payload };
  if (payload.properties?.offset) frame.required = [...new Set([...(frame.required ?? []), 'offset'])];
  return message(def.type, def.summary, frame, 'Volatile: to subscribers only, never journaled or replayed.');
}

const ref = (name: string) => ({ $ref: `${CHANNEL}/messages/${name}` });

function operations(): Json {
  const channel = { $ref: CHANNEL };
  const send = (summary: string, names: string[]) => ({ action: 'send', channel, summary, messages: names.map(ref) });
  return {
    receiveClientFrames: {
      action: 'receive', channel, summary: 'Client request frames, each answered by one ack',
      messages: ['subscribe', 'unsubscribe', 'client_hello', 'subscribe_v2', 'unsubscribe_v2', 'terminal_attach', 'terminal_detach', 'terminal_input', 'terminal_resize', 'terminal_close'].map(ref),
      reply: { channel, messages: [ref('ack')] },
    },
    sendServerHello: send('Sent once on connect', ['server_hello']),
    sendGlobalEvents: send('Global events, to every connection', BROADCAST.map((d) => d.type)),
    sendSessionEvents: send('Session events, to subscribers (subject to agent_filter)', TO_SUBSCRIBERS.map((d) => d.type).concat('event', 'volatile_event')),
    sendTerminalOutput: send('Terminal output and exit, to connections attached with terminal_attach', ['terminal_output', 'terminal_exit']),
    sendTranscript: send('Transcript channel frames, to connections with subscribe_v2 grading the agent', ['transcript.reset', 'transcript.ops']),
    sendResyncRequired: send('Sent after the subscribe ack when a cursor is too old, of another epoch or past the head', ['resync_required']),
  };
}

/** AsyncAPI 3.0 document of `/api/v1/ws`, served at /asyncapi.json. */
export function buildAsyncApi(version: string): Json {
  const msgs = messages();
  return {
    asyncapi: '3.0.0',
    info: { title: 'svc-code event stream', version, description: DESCRIPTION },
    defaultContentType: 'application/json',
    servers: {
      local: {
        host: '127.0.0.1:58627', protocol: 'ws', description: 'Default bind; host and port follow --host / --port.',
        security: [{ $ref: '#/components/securitySchemes/bearer' }, { $ref: '#/components/securitySchemes/bearerSubprotocol' }],
      },
    },
    channels: {
      events: {
        address: '/api/v1/ws', title: 'Event stream',
        description: `One channel carries every frame. Global events: ${BROADCAST.map((d) => `\`${d.type}\``).join(', ')}.`,
        messages: Object.fromEntries(Object.keys(msgs).map((k) => [k, { $ref: `#/components/messages/${k}` }])),
      },
    },
    operations: operations(),
    components: {
      messages: msgs,
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', description: 'Authorization: Bearer <token> on the upgrade request' },
        bearerSubprotocol: { type: 'httpApiKey', in: 'header', name: 'Sec-WebSocket-Protocol', description: 'subprotocol `svc-code.bearer.<token>` (for browsers)' },
      },
    },
  };
}
