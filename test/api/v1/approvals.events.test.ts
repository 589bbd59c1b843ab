// GET /api/v1/approvals/events (daemon/approvals/event-stream.ts): a viewer's stream says `ready`,
// then `approvals` when a call is held (the insert, migration 00026) and when it is decided (the
// status change, 00018), never for another project's approvals; it ends after its lifetime (the
// client reconnects and is authenticated again); past the daemon's limit of streams a new one is
// refused before anything is written; no credential, no stream; shutdown ends open streams.
// Real daemon, database, upstream and HTTP client.
import t from 'tap';
import { eventually } from '../../helpers/eventually.js';
import { activeServer, startCountingServer, startProxyGateway, type ProxyGateway } from '../../helpers/mcp-proxy.js';

const RULES = { get_weather: 'ALLOW', delete_file: 'REQUIRE_APPROVAL' };

interface Stream {
  readonly status: number;
  readonly headers: Headers;
  /** The next event's `event:` name past those already taken (keep-alive comments are not events). */
  next(): Promise<string>;
  /** Resolves when the stream ended: 'end' when the server finished it, 'cut' when the connection broke. */
  readonly ended: Promise<'end' | 'cut'>;
  close(): void;
}

async function openStream(px: ProxyGateway, token: string | null): Promise<Stream> {
  const abort = new AbortController();
  const res = await fetch(`${px.url}/api/v1/approvals/events`, {
    headers: token === null ? {} : { authorization: `Bearer ${token}` },
    signal: abort.signal,
  });
  const events: string[] = [];
  const waiters: (() => void)[] = [];
  let buffer = '';
  const ended = (async (): Promise<'end' | 'cut'> => {
    if (!res.body) return 'end';
    const decoder = new TextDecoder();
    try {
      for await (const chunk of res.body) {
        buffer += decoder.decode(chunk as Uint8Array, { stream: true });
        for (let cut = buffer.indexOf('\n\n'); cut >= 0; cut = buffer.indexOf('\n\n')) {
          const block = buffer.slice(0, cut);
          buffer = buffer.slice(cut + 2);
          if (block.startsWith(':')) continue;
          events.push(/^event: (.+)$/m.exec(block)?.[1] ?? 'message');
          waiters.splice(0).forEach((w) => w());
        }
      }
    } catch {
      waiters.splice(0).forEach((w) => w());
      return 'cut'; // aborted by the test, or the connection closed mid-stream
    }
    waiters.splice(0).forEach((w) => w());
    return 'end';
  })();
  let taken = 0;
  return {
    status: res.status,
    headers: res.headers,
    ended,
    close: () => abort.abort(),
    async next() {
      while (taken >= events.length) {
        const more = new Promise<void>((resolve) => waiters.push(resolve));
        if (await Promise.race([more.then(() => false), ended.then(() => true as const)])) {
          if (taken >= events.length) throw new Error('the stream ended');
        }
      }
      return events[taken++]!;
    },
  };
}

t.test('a viewer hears of a held call and of its decision, not of another project', async (t) => {
  const px = await startProxyGateway(t);
  const up = await startCountingServer(t);
  const s = await activeServer(px, up.url, RULES);
  const viewer = await px.gw.key('viewer');
  const stream = await openStream(px, viewer);
  t.teardown(() => stream.close());
  t.equal(stream.status, 200);
  t.match(stream.headers.get('content-type'), /^text\/event-stream/);
  t.equal(stream.headers.get('cache-control'), 'no-store');
  t.equal(await stream.next(), 'ready', 'the stream opens with ready');

  // Another project's change (what the trigger sends for it) wakes nobody here; this project's does.
  await px.gw.db`select pg_notify('gateway_state', '{"t":"approvals","p":"some-other-project"}')`;
  const held = await px.callTool(s.id, 'delete_file', { path: '/srv/a' });
  const id = held.body?.error?.data?.approval_id as string;
  t.type(id, 'string', held.text);
  t.equal(await stream.next(), 'approvals', 'a new request is announced');

  const decided = await px.call('POST', `/api/v1/mcp/approvals/${id}/decide`, { token: px.gw.adminToken, body: { approved: false } });
  t.equal(decided.status, 200, decided.text);
  t.equal(await stream.next(), 'approvals', 'the decision is announced');
});

t.test('another project alone: no event', async (t) => {
  const px = await startProxyGateway(t, { GATEWAY_APPROVAL_EVENTS_STREAM_SECONDS: '2' });
  const stream = await openStream(px, px.gw.adminToken);
  t.teardown(() => stream.close());
  t.equal(await stream.next(), 'ready');
  await px.gw.db`select pg_notify('gateway_state', '{"t":"approvals","p":"some-other-project"}')`;
  await px.gw.db`select pg_notify('gateway_state', '{"t":"mcp_servers","p":"p1"}')`;
  await stream.ended; // the lifetime ends it
  await t.rejects(stream.next(), /the stream ended/, 'nothing but ready was sent');
});

t.test('a stream ends after its lifetime; a revoked key cannot open the next one', async (t) => {
  const px = await startProxyGateway(t, { GATEWAY_APPROVAL_EVENTS_STREAM_SECONDS: '1' });
  const created = await px.call('POST', '/api/v1/keys', { token: px.gw.adminToken, body: { name: 'watcher', role: 'viewer' } });
  const stream = await openStream(px, created.body.key as string);
  t.equal(await stream.next(), 'ready');
  t.equal(await stream.ended, 'end', 'the server finished the stream');
  const revoked = await px.call('DELETE', `/api/v1/keys/${created.body.id as string}`, { token: px.gw.adminToken });
  t.ok(revoked.status < 300, revoked.text);
  const again = await openStream(px, created.body.key as string);
  t.equal(again.status, 401, 'the reconnect is authenticated again');
});

t.test('no credential: 401; past the limit: 503 event_streams_full before anything is written', async (t) => {
  const px = await startProxyGateway(t, { GATEWAY_APPROVAL_EVENTS_MAX_STREAMS: '1' });
  const anonymous = await openStream(px, null);
  t.equal(anonymous.status, 401);
  const first = await openStream(px, px.gw.adminToken);
  t.teardown(() => first.close());
  t.equal(await first.next(), 'ready');
  const second = await fetch(`${px.url}/api/v1/approvals/events`, { headers: { authorization: `Bearer ${px.gw.adminToken}` } });
  t.equal(second.status, 503);
  t.equal(((await second.json()) as { error: { code: string } }).error.code, 'event_streams_full');
  first.close();
  await first.ended;
  // The place is given back when the client leaves.
  let third: Stream | null = null;
  const reopened = await eventually(async () => {
    third?.close();
    third = await openStream(px, px.gw.adminToken);
    return third.status === 200;
  });
  t.ok(reopened, 'a new stream opens once the first client left');
  (third as Stream | null)?.close();
});

t.test('shutdown finishes open streams rather than waiting for them and cutting their connections', async (t) => {
  const px = await startProxyGateway(t, { GATEWAY_SHUTDOWN_TIMEOUT_SECONDS: '1' });
  const stream = await openStream(px, px.gw.adminToken);
  t.equal(await stream.next(), 'ready');
  await px.gw.gateway.close();
  // Left open, the stream would hold the shutdown for its whole timeout, then lose its connection.
  t.equal(await stream.ended, 'end', 'the stream was finished, not cut');
});
