// Upstream answers are read bounded by GATEWAY_UPSTREAM_RESPONSE_LIMIT_BYTES, never buffered beyond
// it (issue 15, item 12): a 200 MB answer, as one JSON body (declared or chunked) or one SSE event,
// relayed or through a gateway session, is refused with -32006 after at most the limit was read,
// the upstream request is aborted, and the daemon's memory comes back to where it was. A long
// stream of small events is legitimate and streams through, its memory bounded all the same.
import t from 'tap';
import { existsSync } from 'node:fs';
import { freshDatabase } from '../../helpers/db.js';
import { eventually } from '../../helpers/eventually.js';
import type { ApiResponse } from '../../helpers/gateway.js';
import { startHostileUpstream, type HugeForm } from '../../helpers/hostile-upstream.js';
import { activeServer, startProxyGateway, type ProxyGateway } from '../../helpers/mcp-proxy.js';
import { procMemory, spawnCappedDaemon } from '../../helpers/spawn-daemon.js';

const MB = 1e6;
const LIMIT = 64 * 1024 * 1024; // the default of GATEWAY_UPSTREAM_RESPONSE_LIMIT_BYTES
const ANSWER = 200 * MB;
const STREAM = 64 * MB;

t.test(
  'a 200 MB upstream answer costs the daemon at most about the default limit, and its memory comes back',
  { skip: !existsSync('/proc/self/status') && 'needs /proc (Linux)' },
  async (t) => {
    const databaseUrl = await freshDatabase(t);
    // A 96 MB heap: a reader that held the answer as a string or parsed it could not even finish.
    // Large answers are inspected in worker threads that stay once started (their memory is the pool's,
    // not the upstream read's): kept in the daemon's thread here, so RSS measures the read alone.
    const { base, adminToken, pid } = await spawnCappedDaemon(t, {
      DATABASE_URL: databaseUrl,
      GATEWAY_UPSTREAM_ALLOW: '127.0.0.0/8',
      GATEWAY_INSPECTION_OFFLOAD_BYTES: '1000000000',
      GATEWAY_INSPECTION_OFFLOAD_STRINGS: '1000000000',
    });
    const api = async (
      method: string,
      route: string,
      opts: { token?: string; body?: unknown; headers?: Record<string, string> } = {},
    ): Promise<ApiResponse> => {
      const res = await fetch(base + route, {
        method,
        body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
        signal: AbortSignal.timeout(120_000),
        headers: { authorization: `Bearer ${opts.token ?? adminToken}`, 'content-type': 'application/json', ...opts.headers },
      });
      const text = await res.text();
      let body: unknown = null;
      try {
        body = JSON.parse(text);
      } catch {
        body = null;
      }
      return { status: res.status, headers: res.headers, body, text };
    };
    const key = async (role: string, userId: string): Promise<string> =>
      (await api('POST', '/api/v1/keys', { body: { name: role, role, user_id: userId } })).body.key;
    // activeServer only registers, scans and admits through the API, which the spawned daemon serves as well.
    const px = { gw: { api, key } } as unknown as ProxyGateway;
    const up = await startHostileUpstream(t);
    const s = await activeServer(px, up.url, { ping: 'ALLOW' });
    const call = (relayed: boolean) =>
      api('POST', `/api/v1/mcp/proxy/${s.id}`, {
        body: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'ping', arguments: {} } },
        headers: { accept: 'application/json, text/event-stream', ...(relayed ? { 'mcp-protocol-version': '2025-06-18' } : {}) },
      });

    for (const relayed of [true, false]) t.equal((await call(relayed)).status, 200, 'a warm-up call each way');
    const rssBefore = await procMemory(pid, 'VmRSS');
    const peakBefore = await procMemory(pid, 'VmHWM');

    const forms: HugeForm[] = ['json-declared', 'json-chunked', 'sse-event'];
    for (const form of forms) {
      for (const relayed of [true, false]) {
        const what = `${form}, ${relayed ? 'relayed' : 'gateway session'}`;
        up.set('tools/call', { kind: 'huge', bytes: ANSWER, form });
        const aborted = up.aborted();
        const writtenBefore = up.written();
        const res = await call(relayed);
        t.match(res.text, /"code":-32006/, `${what}: -32006`);
        t.match(res.text, new RegExp(`exceeds ${LIMIT} bytes`), `${what}: the limit named`);
        t.ok(await eventually(() => up.aborted() === aborted + 1), `${what}: the upstream request was aborted`);
        const written = up.written() - writtenBefore;
        t.ok(written < ANSWER / 2, `${what}: the upstream got to write ${(written / MB).toFixed(1)} MB of ${ANSWER / MB} MB`);
      }
    }
    // The bytes read up to the limit are dead once refused; they must not stay resident. Kept as many
    // socket-sized chunks, they did (about 100 MB, one and a half limits, above the level before):
    // the allocator keeps such a heap however often V8 collects. In one buffer, collected after the
    // refusal (daemon/mcp/client/release-memory.ts), they go.
    let rssRefused = 0;
    const released = await eventually(async () => (rssRefused = await procMemory(pid, 'VmRSS')) - rssBefore < LIMIT, 15_000);
    t.ok(
      released,
      `after six refused answers RSS is ${(rssRefused / MB).toFixed(0)} MB, ${(rssBefore / MB).toFixed(0)} MB before them (the bound: less than the limit above; kept as chunks, they stayed about 100 MB above)`,
    );
    up.set('tools/call', { kind: 'huge', bytes: STREAM, form: 'sse-events' });
    const streamed = await call(true);
    t.ok(
      streamed.text.length > STREAM * 0.9 && streamed.text.includes('"text":"done"'),
      `a ${STREAM / MB} MB stream of 1 MB events is relayed whole`,
    );
    const picked = await call(false);
    t.same(picked.body?.result, { content: [{ type: 'text', text: 'done' }] }, 'and through a gateway session its answer is picked out');

    const peakAfter = await procMemory(pid, 'VmHWM');
    // Holding one of these answers would cost at least its 200 MB; each was read to at most the limit
    // (into a buffer that doubles as it fills: at most one and a half limits at the moment it grows).
    t.ok(
      peakAfter - rssBefore < ANSWER,
      `peak RSS ${(peakBefore / MB).toFixed(0)} MB before (start-up), ${(peakAfter / MB).toFixed(0)} MB after; RSS ${(rssBefore / MB).toFixed(0)} MB before the answers`,
    );
    let rssAfter = 0;
    t.ok(
      await eventually(async () => (rssAfter = await procMemory(pid, 'VmRSS')) - rssBefore < LIMIT, 15_000),
      `RSS ${(rssBefore / MB).toFixed(0)} MB before, ${(rssAfter / MB).toFixed(0)} MB after the stream too`,
    );
  },
);

t.test('a JSON answer whose Content-Length is over the limit is refused on its headers, before a byte of its body', async (t) => {
  const px = await startProxyGateway(t, { GATEWAY_UPSTREAM_RESPONSE_LIMIT_BYTES: String(LIMIT) });
  const up = await startHostileUpstream(t);
  const s = await activeServer(px, up.url, { ping: 'ALLOW' });
  // The upstream declares 200 MB and then sends nothing: only a reader that trusts the declaration answers at once.
  up.set('tools/call', { kind: 'declared-then-stall', bytes: ANSWER });
  for (const relayed of [true, false]) {
    const res = await px.callTool(s.id, 'ping', {}, relayed ? { headers: { 'mcp-protocol-version': '2025-06-18' } } : {});
    t.match(
      res.body,
      { id: 1, error: { code: -32006, data: { reason: 'UPSTREAM_INVALID_RESPONSE', detail: new RegExp(`exceeds ${LIMIT} bytes`) } } },
      relayed ? 'relayed' : 'through a gateway session',
    );
  }
  t.ok(await eventually(() => up.aborted() === 2), 'both upstream requests were aborted');
});
