// One caller's large message no longer stalls everyone. A message above the offload threshold is
// inspected in a worker thread (daemon/mcp/content/inspect-pool.ts): while one caller's 8 MB of
// arguments (120,000 short strings, or one 8 MB string read in one go) or an upstream's 8 MB answer
// is inspected, /healthz and another caller's small tools/call are answered. Timings are ratios
// measured in the same run: the slowest of those answers against the large call's own duration.
import http from 'node:http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import t, { type Test } from 'tap';
import { offloadedMessages } from '../../../daemon/mcp/content/inspect-pool.js';
import type { ApiResponse } from '../../helpers/gateway.js';
import { activeServer, startProxyGateway, type ProxyGateway } from '../../helpers/mcp-proxy.js';
import { sessionRouter } from '../../helpers/mcp-servers.js';
import { listenOnLoopback } from '../../helpers/ports.js';

/** 120,000 short strings, about 8 MB of JSON (issue 25 item 9). */
const MANY = Array.from({ length: 120_000 }, (_, i) => `item ${i} of the list, nothing secret in it, just a line of text`);
// Budgets the messages stay within: each is inspected whole, then forwarded. The upstream timeout
// leaves room for a loaded machine.
const ENV = { GATEWAY_INSPECTION_BUDGET_MS: '600000', GATEWAY_DETECTOR_BUDGET_MS: '600000', GATEWAY_UPSTREAM_TIMEOUT_SECONDS: '120' };

/** A 2025-era SDK server: `small` answers "ok" whatever its arguments; `bulk` answers MANY as 120,000 text items. */
async function startBulkServer(t: Test): Promise<string> {
  const input = { type: 'object' } as never;
  const build = (): McpServer => {
    const mcp = new McpServer({ name: 'bulk', version: '1.0.0' });
    mcp.server.registerCapabilities({ tools: {} });
    mcp.server.setRequestHandler(ListToolsRequestSchema, () => ({
      tools: [
        { name: 'small', description: 'Answers ok.', inputSchema: input },
        { name: 'bulk', description: 'Answers a long list.', inputSchema: input },
      ],
    }));
    mcp.server.setRequestHandler(CallToolRequestSchema, (req) =>
      req.params.name === 'bulk'
        ? { content: MANY.map((text) => ({ type: 'text' as const, text })) }
        : { content: [{ type: 'text' as const, text: 'ok' }] },
    );
    return mcp;
  };
  const route = sessionRouter(t, build, { response: 'json', stateless: true });
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => void route(req, res, Buffer.concat(chunks)));
  });
  // Idle connections are kept for the whole test: the gateway's next call never races the server closing one (ECONNRESET).
  server.keepAliveTimeout = 600_000;
  const port = await listenOnLoopback(t, server);
  return `http://127.0.0.1:${port}/mcp`;
}

interface During {
  readonly answer: ApiResponse;
  /** The large call's duration, ms. */
  readonly took: number;
  readonly health: readonly number[];
  readonly calls: readonly number[];
}

/** Runs `large` and, until it is answered, asks /healthz and makes `small` by turns, timing each. */
async function whileLarge(
  t: Test,
  px: ProxyGateway,
  large: () => Promise<ApiResponse>,
  small: () => Promise<ApiResponse>,
): Promise<During> {
  await small(); // the small caller's path is warm before the clock starts
  const offloaded = offloadedMessages();
  const started = performance.now();
  let done = false;
  const big = large().finally(() => {
    done = true;
  });
  const health: number[] = [];
  const calls: number[] = [];
  const failed: string[] = [];
  while (!done) {
    let asked = performance.now();
    const ready = await px.gw.api('GET', '/healthz', { token: null });
    if (!done) health.push(performance.now() - asked);
    // A database slowed by a loaded machine makes /healthz answer 503 (its select 1 past 2 s): answered all the same.
    if (ready.status !== 200 && ready.status !== 503) failed.push(`/healthz ${ready.status}`);
    asked = performance.now();
    const answer = await small();
    if (!done) calls.push(performance.now() - asked);
    if (answer.status !== 200 || answer.body?.error) failed.push(`tools/call ${answer.status} ${answer.text.slice(0, 300)}`);
    await new Promise((resolve) => setTimeout(resolve, 20)); // a steady trickle, not a flood of traces
  }
  const answer = await big;
  const took = performance.now() - started;
  t.same(failed, [], '/healthz and the small calls were answered ok throughout');
  t.equal(offloadedMessages() - offloaded, 1, 'the large message was inspected in a worker, the small ones in the thread');
  return { answer, took, health, calls };
}

function ratios(t: Test, d: During): void {
  const slowest = (xs: readonly number[]) => Math.max(...xs);
  t.ok(d.health.length >= 3, `/healthz answered ${d.health.length} times during the large call`);
  t.ok(d.calls.length >= 2, `the other caller's tools/call answered ${d.calls.length} times during it`);
  const pct = (x: number) => ((100 * x) / d.took).toFixed(1);
  t.ok(slowest(d.health) / d.took <= 0.25, `the slowest /healthz took ${pct(slowest(d.health))}% of the large call's time`);
  t.ok(slowest(d.calls) / d.took <= 0.25, `the slowest small tools/call took ${pct(slowest(d.calls))}% of the large call's time`);
}

t.test('120,000 strings of arguments (8 MB) are inspected off the event loop', async (t) => {
  const px = await startProxyGateway(t, ENV);
  const up = await startBulkServer(t);
  const server = await activeServer(px, up, { small: 'ALLOW', bulk: 'ALLOW' });
  const [one, other] = [await px.gw.key('viewer'), await px.gw.key('viewer')];
  const d = await whileLarge(
    t,
    px,
    () => px.callTool(server.id, 'small', { items: MANY }, { token: one }),
    () => px.callTool(server.id, 'small', { city: 'Paris' }, { token: other }),
  );
  t.equal(d.answer.status, 200, d.answer.text.slice(0, 200));
  t.notOk(d.answer.body.error, 'inspected within its budget and forwarded');
  ratios(t, d);
});

t.test("an upstream's answer of 120,000 strings is inspected off the event loop", async (t) => {
  const px = await startProxyGateway(t, ENV);
  const up = await startBulkServer(t);
  const server = await activeServer(px, up, { small: 'ALLOW', bulk: 'ALLOW' });
  const [one, other] = [await px.gw.key('viewer'), await px.gw.key('viewer')];
  const d = await whileLarge(
    t,
    px,
    () => px.callTool(server.id, 'bulk', {}, { token: one }),
    () => px.callTool(server.id, 'small', { city: 'Paris' }, { token: other }),
  );
  t.equal(d.answer.status, 200, d.answer.text.slice(0, 200));
  const result = d.answer.body.result as { content: unknown[]; isError?: boolean };
  t.notOk(result.isError, 'inspected and passed on');
  t.equal(result.content.length, MANY.length);
  ratios(t, d);
});

t.test('one 8 MB string, read by a detector in one go, is inspected off the event loop', async (t) => {
  const px = await startProxyGateway(t, ENV);
  // The secrets detector's RE2 heap refuses a string this long (fail closed, CONTENT_CHECK_FAILED,
  // within a quarter second): off for arguments here, the injection detector reads all 8 MB in one
  // synchronous run of seconds, which only a worker keeps off the event loop.
  const off = await px.gw.api('POST', '/api/v1/mcp/content-policies', {
    body: { direction: 'arguments', detector: 'secrets', action: 'OFF' },
  });
  t.equal(off.status, 201, off.text);
  await px.gw.settled();
  const up = await startBulkServer(t);
  const server = await activeServer(px, up, { small: 'ALLOW', bulk: 'ALLOW' });
  const [one, other] = [await px.gw.key('viewer'), await px.gw.key('viewer')];
  const text = 'lorem ipsum dolor sit amet, '.repeat(300_000); // 8.4 MB
  const d = await whileLarge(
    t,
    px,
    () => px.callTool(server.id, 'small', { text }, { token: one }),
    () => px.callTool(server.id, 'small', { city: 'Paris' }, { token: other }),
  );
  t.equal(d.answer.status, 200, d.answer.text.slice(0, 200));
  t.notOk(d.answer.body.error, 'inspected within its budget and forwarded');
  ratios(t, d);
});
