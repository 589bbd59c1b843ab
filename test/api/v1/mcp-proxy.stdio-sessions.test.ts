// Per-session stdio servers through the proxy (issue 28), with the official SDK client: a
// 'per-session' server gets one process per client session (the gateway opens the session at
// initialize and binds it to the credential), a shared one a single process for every caller;
// DELETE of a session ends its process and binding, a targeted stop ends every process of the
// server, and a request outside a session is refused before anything is written or started.
import t from 'tap';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.js';
import { callTraces } from '../../helpers/mcp-proxy.js';
import { activeStdio, hostile, processesOf, sdkClient, STDIO_ON, textOf } from '../../helpers/stdio-proxy.js';

const whoami = async (client: Client): Promise<string> => textOf(await client.callTool({ name: 'whoami', arguments: {} }));
const transportOf = (client: Client) => client.transport as StreamableHTTPClientTransport;
const bound = async (gw: TestGateway): Promise<number> => (await gw.db`select count(*)::int as n from mcp_proxy_sessions`)[0]!.n as number;

function post(gw: TestGateway, id: string, body: unknown, headers: Record<string, string> = {}) {
  return fetch(`${gw.url}/api/v1/mcp/proxy/${id}`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${gw.adminToken}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...headers,
    },
    body: JSON.stringify(body),
  });
}

t.test('per-session: two client sessions, two processes; DELETE ends one; a targeted stop ends all', async (t) => {
  const gw = await startTestGateway(t, { env: STDIO_ON });
  const id = await activeStdio(t, gw, { ...hostile('per-session'), process_mode: 'per-session' }, {});
  t.same(await processesOf(gw, id), [], 'the scan left no process behind: the processes are the sessions’');
  const a = await sdkClient(t, gw, id);
  const b = await sdkClient(t, gw, id);
  const sidA = transportOf(a).sessionId;
  t.ok(sidA && transportOf(b).sessionId && sidA !== transportOf(b).sessionId, 'the gateway gave each client a session');
  t.equal(await bound(gw), 2, 'both bound to the credential');
  const tokenA = await whoami(a);
  const tokenB = await whoami(b);
  t.not(tokenA, tokenB, 'two sessions, two processes');
  t.equal(await whoami(a), tokenA, 'a session keeps its process');
  const both = await processesOf(gw, id);

  await transportOf(a).terminateSession();
  const afterDelete = await processesOf(gw, id);
  t.ok(afterDelete.length > 0 && afterDelete.length < both.length, 'DELETE ended the session’s process before it answered');
  t.ok(
    afterDelete.every((pid) => both.includes(pid)),
    'and only that one',
  );
  t.equal(await bound(gw), 1, 'and its binding');
  const stale = await post(
    gw,
    id,
    { jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'whoami', arguments: {} } },
    { 'mcp-session-id': sidA! },
  );
  t.equal(stale.status, 404, 'the ended session is not found');
  t.equal(await whoami(b), tokenB, 'the other session runs on in its own process');

  const stop = await gw.api('POST', '/api/v1/mcp/emergency-stop', { body: { scope: 'server', target_id: id, reason: 'drill' } });
  t.equal(stop.status, 200, stop.status === 200 ? 'stopped' : stop.text);
  t.same(await processesOf(gw, id), [], 'no process of any session when the stop answers');
});

t.test('shared (the default): every caller reaches the one process, with no session of the caller', async (t) => {
  const gw = await startTestGateway(t, { env: STDIO_ON });
  const id = await activeStdio(t, gw, hostile('shared'), {});
  const a = await sdkClient(t, gw, id);
  const b = await sdkClient(t, gw, id);
  t.equal(transportOf(a).sessionId, undefined, 'no session given');
  t.equal(await whoami(a), await whoami(b), 'one process');
  t.equal(await bound(gw), 0);
});

t.test('per-session: a request outside a session is refused before anything is written or started', async (t) => {
  const gw = await startTestGateway(t, { env: STDIO_ON });
  const id = await activeStdio(t, gw, { ...hostile('per-session'), process_mode: 'per-session' }, {});
  const res = await post(gw, id, { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'whoami', arguments: {} } });
  t.equal(res.status, 400);
  t.match(await res.json(), { id: 1, error: { code: -32600, data: { reason: 'INVALID_REQUEST', detail: /initialize first/ } } });
  t.same(await callTraces(gw), [], 'no trace');
  t.same(await processesOf(gw, id), [], 'no process');
  t.equal(await bound(gw), 0, 'no session');
});
