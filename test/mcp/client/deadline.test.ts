// Slow and hostile upstreams are bounded in time (issue 15, items 10, 11 and 15): the scan's total
// deadline, the proxy's idle deadline counted in complete SSE events or comments (never bytes), its
// total per-call ceiling, a legitimately silent tool outliving GATEWAY_UPSTREAM_TIMEOUT_SECONDS,
// and a rewritten tools/list event stream keeping every event's id and retry.
import t from 'tap';
import { InMemoryEventStore } from '@modelcontextprotocol/sdk/examples/shared/inMemoryEventStore.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { SseParser, type SseEvent } from '../../../daemon/mcp/client/sse.js';
import { eventually } from '../../helpers/eventually.js';
import { startTestGateway } from '../../helpers/gateway.js';
import { startHostileUpstream, startSilentToolServer, SSE_FIELDS } from '../../helpers/hostile-upstream.js';
import { activeServer, startProxyGateway } from '../../helpers/mcp-proxy.js';
import { listen, SAMPLE_TOOLS, sessionRouter } from '../../helpers/mcp-servers.js';

const ALLOW = { get_weather: 'ALLOW', delete_file: 'ALLOW', ping: 'ALLOW', silent: 'ALLOW' };

// Small settings so that every limit fires within seconds: the upstream must answer its headers
// within 1 s, then go no more than 5 s without a complete event, and finish a call within 8 s.
const LIMITS = {
  GATEWAY_UPSTREAM_TIMEOUT_SECONDS: '1',
  GATEWAY_UPSTREAM_IDLE_TIMEOUT_SECONDS: '5',
  GATEWAY_UPSTREAM_CALL_TIMEOUT_SECONDS: '8',
};
// Without its limits the proxy held such calls for as long as the upstream kept trickling: the
// client gives up here, well past every limit above, so a missing limit fails instead of hanging.
const CLIENT_PATIENCE_MS = 40_000;

interface Answer {
  status: number;
  type: string;
  text: string;
  seconds: number;
  // biome-ignore lint/suspicious/noExplicitAny: JSON-RPC answers of many shapes, read field by field in the assertions
  json: any;
  events: SseEvent[];
}

/**
 * POSTs one message to the proxy. `relayed`: the caller speaks MCP itself (MCP-Protocol-Version),
 * so the message is relayed; otherwise it goes through a one-off gateway session.
 */
async function send(serverId: string, message: object, relayed: boolean): Promise<Answer> {
  const started = Date.now();
  const res = await fetch(`${px.url}/api/v1/mcp/proxy/${serverId}`, {
    method: 'POST',
    body: JSON.stringify(message),
    signal: AbortSignal.timeout(CLIENT_PATIENCE_MS),
    headers: {
      authorization: `Bearer ${px.gw.adminToken}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(relayed ? { 'mcp-protocol-version': '2025-06-18' } : {}),
    },
  });
  const text = await res.text();
  const type = (res.headers.get('content-type') ?? '').split(';')[0]!;
  let json: unknown = null;
  try {
    json = type === 'application/json' ? JSON.parse(text) : null;
  } catch {
    json = null;
  }
  const events = type === 'text/event-stream' ? new SseParser(64 * 1024 * 1024).push(Buffer.from(text)) : [];
  return { status: res.status, type, text, seconds: (Date.now() - started) / 1000, json, events };
}

// One gateway for the proxy's tests (each test registers its own upstream, so its outcomes are its own).
const px = await startProxyGateway(t, LIMITS);

const call = (name: string) => ({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name, arguments: {} } });
const LIST = { jsonrpc: '2.0', id: 8, method: 'tools/list', params: {} };

async function outcomes(serverId: string): Promise<{ outcome: string; rpc_code: number | null }[]> {
  await px.proxy.outcomes.flush();
  return px.gw.db`select outcome, rpc_code from mcp_call_outcomes where server_id = ${serverId} order by recorded_at` as never;
}

/** The JSON-RPC messages of an event stream. */
// biome-ignore lint/suspicious/noExplicitAny: JSON-RPC answers of many shapes, read field by field in the assertions
const messages = (events: SseEvent[]): any[] =>
  events.flatMap((e) => {
    try {
      return e.data ? [JSON.parse(e.data)] : [];
    } catch {
      return [];
    }
  });

t.test(
  'a tool silent for longer than GATEWAY_UPSTREAM_TIMEOUT_SECONDS is answered: SSE or JSON server, relayed or through a gateway session',
  async (t) => {
    await Promise.all(
      (['sse', 'json'] as const).map(async (response) => {
        const up = await startSilentToolServer(t, { response, silentMs: 3000 });
        const s = await activeServer(px, up.url, ALLOW);
        const [relayed, gateway] = await Promise.all([send(s.id, call('silent'), true), send(s.id, call('silent'), false)]);
        const results = response === 'sse' ? messages(relayed.events) : [relayed.json];
        t.same(
          results.at(-1),
          { jsonrpc: '2.0', id: 7, result: { content: [{ type: 'text', text: 'silent done' }] } },
          `${response} server, relayed: the answer after 3 s of silence (${relayed.seconds} s)`,
        );
        t.same(
          gateway.json,
          { jsonrpc: '2.0', id: 7, result: { content: [{ type: 'text', text: 'silent done' }] } },
          `${response} server, gateway session: the answer (${gateway.seconds} s)`,
        );
        t.same(await outcomes(s.id), [
          { outcome: 'ok', rpc_code: null },
          { outcome: 'ok', rpc_code: null },
        ]);
      }),
    );
  },
);

t.test(
  'a trickle of bytes that never completes an event is cut by the idle deadline: tools/call and tools/list, relayed or not',
  async (t) => {
    const up = await startHostileUpstream(t);
    const s = await activeServer(px, up.url, ALLOW);
    // The same upstream with no results inspection: its tools/call answers are relayed byte for byte.
    const raw = await activeServer(px, up.url, ALLOW);
    for (const detector of ['secrets', 'pii', 'injection']) {
      const off = await px.gw.api('POST', '/api/v1/mcp/content-policies', {
        body: { server_id: raw.id, direction: 'results', detector, action: 'OFF' },
      });
      t.equal(off.status, 201);
    }
    await px.gw.settled();
    up.set('tools/call', { kind: 'trickle-sse' });
    up.set('tools/list', { kind: 'trickle-sse' });
    const [callRelayed, callGateway, listRelayed, listGateway, rawRelayed] = await Promise.all([
      send(s.id, call('ping'), true),
      send(s.id, call('ping'), false),
      send(s.id, LIST, true),
      send(s.id, LIST, false),
      send(raw.id, call('ping'), true),
    ]);

    // Relayed byte for byte (no results inspection): the stream had begun (headers and the trickled bytes went on): it ends.
    t.equal(rawRelayed.type, 'text/event-stream');
    t.match(rawRelayed.text, /^d+$/, 'the stream ends after the bytes it carried, with no half event completed by the gateway');
    t.same(messages(rawRelayed.events), [], 'and no answer');
    // Relayed tools/call with its result inspected, and tools/list, both rewritten event by event:
    // nothing of the trickle was sent, so the caller learns why.
    for (const [answer, id] of [
      [callRelayed, 7],
      [listRelayed, 8],
    ] as const) {
      t.equal(answer.type, 'text/event-stream');
      t.match(messages(answer.events), [
        {
          id,
          error: { code: -32007, data: { reason: 'UPSTREAM_UNREACHABLE', detail: /within 5 s \(GATEWAY_UPSTREAM_IDLE_TIMEOUT_SECONDS\)/ } },
        },
      ]);
    }
    // Through a gateway session nothing was sent yet: a JSON-RPC error.
    for (const [what, answer] of [
      ['tools/call', callGateway],
      ['tools/list', listGateway],
    ] as const) {
      t.match(
        answer.json,
        {
          jsonrpc: '2.0',
          error: { code: -32007, data: { reason: 'UPSTREAM_UNREACHABLE', detail: /GATEWAY_UPSTREAM_IDLE_TIMEOUT_SECONDS/ } },
        },
        `${what} through a gateway session: -32007`,
      );
    }
    for (const answer of [callRelayed, callGateway, listRelayed, listGateway, rawRelayed])
      t.ok(answer.seconds < 30, `over in ${answer.seconds} s: the trickle did not hold it`);
    t.ok(await eventually(() => up.aborted() === 5), `the 5 upstream requests were aborted (${up.aborted()})`);
    t.same(
      await outcomes(s.id),
      [
        { outcome: 'timeout', rpc_code: -32007 },
        { outcome: 'timeout', rpc_code: -32007 },
      ],
      'both calls recorded as timeouts',
    );
    t.same(await outcomes(raw.id), [{ outcome: 'timeout', rpc_code: -32007 }]);
  },
);

t.test('an upstream sending keep-alive comments forever is cut by the total per-call ceiling', async (t) => {
  const up = await startHostileUpstream(t);
  const s = await activeServer(px, up.url, ALLOW);
  up.set('tools/call', { kind: 'comments-sse' });
  const [relayed, gateway] = await Promise.all([send(s.id, call('ping'), true), send(s.id, call('ping'), false)]);
  t.match(relayed.text, /^(: keep-alive\n)+/, 'the comments went on as they came (each one kept the idle deadline away)');
  t.match(
    messages(relayed.events),
    [
      {
        id: 7,
        error: {
          code: -32007,
          data: { reason: 'UPSTREAM_UNREACHABLE', detail: /longer than 8 s \(GATEWAY_UPSTREAM_CALL_TIMEOUT_SECONDS\)/ },
        },
      },
    ],
    'between events and not yet answered: the stream ends with the error for the call',
  );
  t.match(gateway.json, { id: 7, error: { code: -32007, data: { detail: /GATEWAY_UPSTREAM_CALL_TIMEOUT_SECONDS/ } } });
  for (const answer of [relayed, gateway]) t.ok(answer.seconds < 30, `over in ${answer.seconds} s`);
  t.ok(await eventually(() => up.aborted() === 2), 'both upstream requests were aborted');
  t.same(await outcomes(s.id), [
    { outcome: 'timeout', rpc_code: -32007 },
    { outcome: 'timeout', rpc_code: -32007 },
  ]);
});

t.test(
  'a scan has a total deadline: a trickling server answers scanned false, reason unreachable, within GATEWAY_SCAN_TIMEOUT_SECONDS',
  async (t) => {
    // The default connect + headers timeout (30 s): before the scan deadline existed a trickle held a scan for 4 x 30 s.
    const gw = await startTestGateway(t, { env: { GATEWAY_UPSTREAM_ALLOW: '127.0.0.0/8', GATEWAY_SCAN_TIMEOUT_SECONDS: '2' } });
    const up = await startHostileUpstream(t);
    up.set('tools/list', { kind: 'trickle-sse' });
    const server = (await gw.api('POST', '/api/v1/mcp/servers', { body: { name: 'trickler', server_url: up.url } })).body;
    const started = Date.now();
    const scan = await gw.api('POST', `/api/v1/mcp/servers/${server.id}/scan`);
    const seconds = (Date.now() - started) / 1000;
    t.equal(scan.status, 200);
    t.match(scan.body, {
      scanned: false,
      reason: 'unreachable',
      detail: /the scan took longer than 2 s \(GATEWAY_SCAN_TIMEOUT_SECONDS\)/,
      server_status: 'PENDING_APPROVAL',
    });
    t.ok(seconds < 20, `answered in ${seconds} s`);
    t.ok(await eventually(() => up.aborted() === 1), 'the upstream request was aborted');
    const [row] = await gw.db`select scan_state, scan_reason from mcp_servers where id = ${server.id}`;
    t.same({ ...row }, { scan_state: 'failed', scan_reason: 'unreachable' });
  },
);

t.test("a rewritten tools/list event stream keeps every event's id and retry, the data filtered", async (t) => {
  const up = await startHostileUpstream(t);
  const s = await activeServer(px, up.url, ALLOW);
  up.set('tools/list', { kind: 'sse-fields' });
  const answer = await send(s.id, LIST, true);
  t.equal(answer.type, 'text/event-stream');
  const [priming, note, response] = answer.events;
  t.same(
    priming,
    { type: 'message', data: '', id: SSE_FIELDS.primingId, retry: SSE_FIELDS.retry },
    'the priming event: id, retry and its empty data',
  );
  t.match(note, { id: SSE_FIELDS.noteId, type: 'message' });
  t.same(JSON.parse(note!.data!), { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'listing' } });
  t.equal(response!.id, SSE_FIELDS.responseId, 'the response keeps its id');
  t.same(
    JSON.parse(response!.data!).result.tools.map((x: { name: string }) => x.name),
    SAMPLE_TOOLS.map((x) => x.name),
  );
  t.equal(answer.events.length, 3, 'comments are dropped from a rewritten stream');
});

t.test(
  'through the proxy, an SDK server with an event store: every event of a tools/list stream keeps its id, the priming one its retry',
  async (t) => {
    const build = () => {
      const mcp = new McpServer({ name: 'resumable', version: '1.0.0' });
      mcp.server.registerCapabilities({ tools: {} });
      mcp.server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: SAMPLE_TOOLS as never }));
      return mcp;
    };
    const up = await listen(t, sessionRouter(t, build, { resumable: { eventStore: new InMemoryEventStore(), retryInterval: 2500 } }));
    const s = await activeServer(px, up.url, ALLOW);
    const headers = {
      authorization: `Bearer ${px.gw.adminToken}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    };
    const init = await fetch(`${px.url}/api/v1/mcp/proxy/${s.id}`, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
      }),
    });
    const session = init.headers.get('mcp-session-id')!;
    await init.text();
    const sessionHeaders = { ...headers, 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' };
    await (
      await fetch(`${px.url}/api/v1/mcp/proxy/${s.id}`, {
        method: 'POST',
        headers: sessionHeaders,
        body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
      })
    ).text();
    const list = await fetch(`${px.url}/api/v1/mcp/proxy/${s.id}`, { method: 'POST', headers: sessionHeaders, body: JSON.stringify(LIST) });
    const events = new SseParser(1024 * 1024).push(Buffer.from(await list.text()));
    t.ok(events.length >= 2, `${events.length} events`);
    t.match(events[0], { data: '', retry: '2500' }, 'the priming event with its retry hint');
    for (const event of events) t.match(event.id, /.+/, `event ${JSON.stringify(event.data?.slice(0, 40))} keeps its id`);
    t.same(
      JSON.parse(events.at(-1)!.data!).result.tools.map((x: { name: string }) => x.name),
      SAMPLE_TOOLS.map((x) => x.name),
    );
  },
);
