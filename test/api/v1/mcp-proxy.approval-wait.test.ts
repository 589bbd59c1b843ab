// Wait mode (issue 19, "Wait for the decision instead of failing"): a held tools/call whose client
// accepts an event stream and asks to wait (X-Gateway-Approval-Wait, or the project's
// approval_wait_seconds) stays open until a person decides; approved, the single call returns the
// tool's result and the upstream sees it once. Denied, expired, stopped, revoked, out of time, the
// client gone, a client that takes no event stream, a decision on another daemon, real SDK clients.
import t, { type Test } from 'tap';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from '@modelcontextprotocol/client';
import { runCli } from '../../helpers/cli.js';
import { eventually } from '../../helpers/eventually.js';
import { startTestGateway } from '../../helpers/gateway.js';
import { activeServer, callTraces, PROXY_ENV, startCountingServer, startProxyGateway, type ProxyGateway } from '../../helpers/mcp-proxy.js';

const STREAM_ACCEPT = 'application/json, text/event-stream';

interface WaitStream {
  readonly status: number;
  readonly contentType: string | null;
  /** The next event's JSON message, or `{comment}` for a comment line. */
  next(): Promise<Record<string, unknown>>;
  /** Reads until the answer to request id 1 arrives. */
  answer(): Promise<Record<string, unknown>>;
  close(): void;
}

/** POSTs a tools/call (id 1) and reads its event stream item by item, as a client reading a long answer. */
async function openCall(
  px: ProxyGateway,
  serverId: string,
  name: string,
  args: Record<string, unknown>,
  headers: Record<string, string>,
  meta?: Record<string, unknown>,
): Promise<WaitStream> {
  const controller = new AbortController();
  const res = await fetch(`${px.url}/api/v1/mcp/proxy/${serverId}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${px.gw.adminToken}`, 'content-type': 'application/json', ...headers },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name, arguments: args, ...(meta ? { _meta: meta } : {}) },
    }),
    signal: controller.signal,
  });
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  const items: Record<string, unknown>[] = [];
  const pull = async (): Promise<void> => {
    const { value, done } = await reader.read();
    if (done) throw new Error(`the stream ended; unread: ${JSON.stringify(buffer)}`);
    buffer += decoder.decode(value, { stream: true });
    let cut = buffer.indexOf('\n\n');
    while (cut >= 0) {
      const block = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 2);
      const data = block
        .split('\n')
        .filter((l) => l.startsWith('data:'))
        .map((l) => l.slice(5).trimStart());
      if (data.length > 0) items.push(JSON.parse(data.join('\n')));
      else for (const l of block.split('\n')) if (l.startsWith(':')) items.push({ comment: l.slice(1).trim() });
      cut = buffer.indexOf('\n\n');
    }
  };
  const next = async () => {
    while (items.length === 0) await pull();
    return items.shift()!;
  };
  return {
    status: res.status,
    contentType: res.headers.get('content-type'),
    next,
    async answer() {
      for (;;) {
        const item = await next();
        if (item.id === 1) return item;
      }
    },
    close: () => controller.abort(),
  };
}

async function setup(t: Test, env: Record<string, string> = {}, response: 'json' | 'sse' = 'json') {
  const px = await startProxyGateway(t, env);
  const upstream = await startCountingServer(t, { response });
  const s = await activeServer(px, upstream.url, { delete_file: 'REQUIRE_APPROVAL' });
  const alice = await px.gw.key('admin', 'alice');
  const openApproval = () => oneOpen(() => px.call('GET', '/api/v1/mcp/approvals'));
  const decide = (id: string, approved: boolean, comment?: string) =>
    px.call('POST', `/api/v1/mcp/approvals/${id}/decide`, { token: alice, body: { approved, ...(comment ? { comment } : {}) } });
  return { px, upstream, s, alice, openApproval, decide };
}

/** The one open approval request, once the held call has created it. */
async function oneOpen(list: () => Promise<{ body: { approvals: { id: string }[] } }>): Promise<string> {
  let id: string | undefined;
  const found = await eventually(async () => {
    const open = (await list()).body.approvals;
    id = open.length === 1 ? open[0]!.id : undefined;
    return id !== undefined;
  });
  if (!found || id === undefined) throw new Error('no single open approval request');
  return id;
}

const count = async (px: ProxyGateway, what: 'approvals' | 'call traces') =>
  (
    await px.gw.db.unsafe(
      what === 'approvals'
        ? 'select count(*)::int as n from approvals'
        : "select count(*)::int as n from traces where trace_type = 'MCP_TOOL_CALL'",
    )
  )[0]!.n as number;

t.test('approved while it waits: the one call returns the tool result, the upstream sees it once', async (t) => {
  for (const response of ['json', 'sse'] as const) {
    const { px, upstream, s, openApproval, decide } = await setup(t, {}, response);
    const call = await openCall(
      px,
      s.id,
      'delete_file',
      { text: 'hi' },
      { accept: STREAM_ACCEPT, 'x-gateway-approval-wait': '60' },
      { progressToken: 'tok' },
    );
    t.equal(call.status, 200, response);
    t.match(call.contentType, /^text\/event-stream/);
    const id = await openApproval();
    t.same(
      await call.next(),
      {
        jsonrpc: '2.0',
        method: 'notifications/progress',
        params: { progressToken: 'tok', progress: 1, message: `waiting for approval ${id}` },
      },
      'a progress notification names the approval it waits for',
    );
    t.equal(upstream.calls(), 0, 'nothing forwarded while waiting');
    t.equal((await decide(id, true, 'once')).status, 200);
    const answer = await call.answer();
    t.same(answer.result, { content: [{ type: 'text', text: JSON.stringify({ text: 'hi' }) }] }, `${response}: the tool's result`);
    t.equal(upstream.calls(), 1, 'forwarded exactly once');
    t.equal((await px.gw.db`select status from approvals where id = ${id}`)[0]!.status, 'USED', 'the approval is spent');
    const traces = await callTraces(px.gw);
    t.same(
      traces.map((x) => [x.decision, x.body.approval_id]),
      [
        ['PENDING_APPROVAL', id],
        ['PASSED', id],
      ],
      'the held call and the forwarded one, both naming the approval',
    );
  }
});

t.test('without a progress token the wait sends keep-alive comments; the project setting asks for the wait', async (t) => {
  const { px, upstream, s, openApproval, decide } = await setup(t);
  t.equal((await px.call('PATCH', '/api/v1/project', { body: { approval_wait_seconds: 60 } })).status, 200);
  await px.gw.settled();
  const call = await openCall(px, s.id, 'delete_file', { text: 'a' }, { accept: STREAM_ACCEPT });
  const id = await openApproval();
  t.same(await call.next(), { comment: `waiting for approval ${id}` });
  await decide(id, true);
  t.match((await call.answer()).result, { content: [{ text: '{"text":"a"}' }] });
  t.equal(upstream.calls(), 1);
});

t.test('no wait: a client that takes no event stream, a wait of 0, or no setting gets the immediate -32004', async (t) => {
  const { px, upstream, s } = await setup(t, {});
  const jsonOnly = await px.callTool(
    s.id,
    'delete_file',
    { text: 'x' },
    { headers: { accept: 'application/json', 'x-gateway-approval-wait': '60' } },
  );
  t.match(jsonOnly.body.error, { code: -32004, data: { reason: 'TOOL_REQUIRES_APPROVAL' } }, 'JSON only: answered at once');
  const zero = await px.callTool(
    s.id,
    'delete_file',
    { text: 'y' },
    { headers: { accept: STREAM_ACCEPT, 'x-gateway-approval-wait': '0' } },
  );
  t.match(zero.body.error, { code: -32004 });
  const unset = await px.callTool(s.id, 'delete_file', { text: 'z' }, { headers: { accept: STREAM_ACCEPT } });
  t.match(unset.body.error, { code: -32004 }, 'the project default is 0: the spec');
  t.equal(upstream.calls(), 0);
});

t.test('a malformed wait header is refused before anything is decided or written', async (t) => {
  const { px, upstream, s } = await setup(t);
  for (const value of ['soon', '-5', '1.5', '1e3']) {
    const res = await px.callTool(
      s.id,
      'delete_file',
      { text: 'x' },
      { headers: { accept: STREAM_ACCEPT, 'x-gateway-approval-wait': value } },
    );
    t.match(res.body.error, { code: -32602, data: { detail: 'x-gateway-approval-wait must be a whole number of seconds' } }, value);
  }
  t.equal(await count(px, 'approvals'), 0);
  t.equal(await count(px, 'call traces'), 0);
  t.equal(upstream.calls(), 0);
});

t.test('denied while it waits: -32003 APPROVAL_DENIED with who and why; nothing forwarded', async (t) => {
  const { px, upstream, s, openApproval, decide } = await setup(t);
  const call = await openCall(px, s.id, 'delete_file', { text: 'no' }, { accept: STREAM_ACCEPT, 'x-gateway-approval-wait': '60' });
  const id = await openApproval();
  await decide(id, false, 'not today');
  const answer = await call.answer();
  t.match(answer.error, { code: -32003, data: { reason: 'APPROVAL_DENIED' } });
  t.match(
    (answer.error as { message: string }).message,
    `Approval ${id} for this call to tool "delete_file" was denied by alice ("not today")`,
  );
  // The call carried no approval id: the text must not tell it to leave one out (issue 24, item 8).
  t.notMatch((answer.error as { message: string }).message, /this approval id/);
  t.equal(upstream.calls(), 0);
  t.same(
    (await callTraces(px.gw)).map((x) => x.decision),
    ['PENDING_APPROVAL', 'BLOCKED'],
  );
});

t.test('expired while it waits: -32004 saying so, and no new request is opened', async (t) => {
  const { px, upstream, s, openApproval } = await setup(t, { GATEWAY_APPROVAL_TTL_SECONDS: '2' });
  const call = await openCall(px, s.id, 'delete_file', { text: 'late' }, { accept: STREAM_ACCEPT, 'x-gateway-approval-wait': '60' });
  const id = await openApproval();
  const answer = await call.answer();
  t.match(answer.error, { code: -32004, data: { approval_id: id } });
  t.match(
    (answer.error as { message: string }).message,
    `Approval ${id} for the call to tool "delete_file" on server "${s.name}" expired while the call waited`,
  );
  t.equal(await count(px, 'approvals'), 1, 'no second request');
  t.equal(upstream.calls(), 0);
});

t.test('no decision within the wait: the held -32004, the request still open for a repeat', async (t) => {
  const { px, upstream, s, openApproval, decide } = await setup(t);
  const call = await openCall(px, s.id, 'delete_file', { text: 'w' }, { accept: STREAM_ACCEPT, 'x-gateway-approval-wait': '1' });
  const id = await openApproval();
  const answer = await call.answer();
  t.match(answer.error, { code: -32004, data: { reason: 'TOOL_REQUIRES_APPROVAL', approval_id: id } });
  t.match((answer.error as { message: string }).message, `is held for approval: request ${id}`);
  t.equal((await px.gw.db`select status from approvals where id = ${id}`)[0]!.status, 'PENDING');
  await decide(id, true);
  const repeat = await px.callTool(s.id, 'delete_file', { text: 'w' }, { headers: { 'x-gateway-approval-id': id } });
  t.match(repeat.body.result, { content: [{ text: '{"text":"w"}' }] }, 'the repeat is forwarded under the approval');
  t.equal(upstream.calls(), 1);
});

t.test('the client gone: the approval stays open and serves a repeat', async (t) => {
  const { px, upstream, s, openApproval, decide } = await setup(t);
  const call = await openCall(px, s.id, 'delete_file', { text: 'g' }, { accept: STREAM_ACCEPT, 'x-gateway-approval-wait': '60' });
  const id = await openApproval();
  await call.next();
  call.close();
  await decide(id, true);
  const repeat = await px.callTool(s.id, 'delete_file', { text: 'g' }, { headers: { 'x-gateway-approval-id': id } });
  t.match(repeat.body.result, { content: [{ text: '{"text":"g"}' }] });
  t.equal(upstream.calls(), 1, 'once: by the repeat, not by the call that left');
});

t.test('a project stop or a revoked key during the wait: -32003 with the reason, nothing forwarded', async (t) => {
  const { px, upstream, s, openApproval, decide } = await setup(t);
  const stopped = await openCall(px, s.id, 'delete_file', { text: 's' }, { accept: STREAM_ACCEPT, 'x-gateway-approval-wait': '60' });
  const id = await openApproval();
  t.equal((await px.call('POST', '/api/v1/project/emergency-stop', { body: { reason: 'incident' } })).status, 200);
  t.match((await stopped.answer()).error, { code: -32003, data: { reason: 'PROJECT_EMERGENCY_STOP', approval_id: id } });
  t.equal((await px.gw.db`select status from approvals where id = ${id}`)[0]!.status, 'CANCELLED');
  await px.call('POST', '/api/v1/project/emergency-stop/lift', { body: {} });

  const key = (await px.call('POST', '/api/v1/keys', { body: { name: 'agent-key', role: 'editor' } })).body as { id: string; key: string };
  const res = await fetch(`${px.url}/api/v1/mcp/proxy/${s.id}`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${key.key}`,
      'content-type': 'application/json',
      accept: STREAM_ACCEPT,
      'x-gateway-approval-wait': '60',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'delete_file', arguments: { text: 'r' } } }),
  });
  const id2 = await openApproval();
  t.equal((await px.call('DELETE', `/api/v1/keys/${key.id}`)).status < 300, true, 'key revoked');
  await decide(id2, true);
  const text = await res.text();
  t.match(text, /"reason":"CREDENTIAL_REVOKED"/, 'a revoked key does not act on a later approval');
  t.equal(upstream.calls(), 0);
});

t.test('the decision made on another daemon wakes the waiting call', async (t) => {
  const { px, upstream, s, alice } = await setup(t);
  const other = await startTestGateway(t, { databaseUrl: px.gw.databaseUrl, env: PROXY_ENV });
  const call = await openCall(px, s.id, 'delete_file', { text: 'two' }, { accept: STREAM_ACCEPT, 'x-gateway-approval-wait': '60' });
  const id = await oneOpen(() => other.api('GET', '/api/v1/mcp/approvals', { token: alice }));
  t.equal((await other.api('POST', `/api/v1/mcp/approvals/${id}/decide`, { token: alice, body: { approved: true } })).status, 200);
  t.match((await call.answer()).result, { content: [{ text: '{"text":"two"}' }] });
  t.equal(upstream.calls(), 1);
});

t.test('real SDK clients (1.x and 2.x) wait in one call while gatewayctl approves from another process', async (t) => {
  const { px, upstream, s, alice, openApproval } = await setup(t);
  const home = t.testdir({});
  /** gatewayctl in its own process decides the one open request, once the held call has made it. */
  const decideWithCli = async (verdict: '--approve' | '--deny', comment: string) => {
    const id = await openApproval();
    const run = await runCli(['approvals', 'decide', id, verdict, '--comment', comment], home, {
      GATEWAYCTL_CONFIG: `${home}/none.json`,
      GATEWAY_URL: px.url,
      GATEWAY_TOKEN: alice,
    });
    t.equal(run.code, 0, run.stderr);
  };
  const approveWithCli = () => decideWithCli('--approve', 'cli');
  const url = new URL(`${px.url}/api/v1/mcp/proxy/${s.id}`);
  const requestInit = { headers: { authorization: `Bearer ${px.gw.adminToken}`, 'x-gateway-approval-wait': '60' } };

  const legacy = new Client({ name: 'wait-test', version: '1.0.0' });
  await legacy.connect(new StreamableHTTPClientTransport(url, { requestInit }));
  t.teardown(() => legacy.close());
  const [legacyResult] = await Promise.all([legacy.callTool({ name: 'delete_file', arguments: { text: 'sdk1' } }), approveWithCli()]);
  t.match(legacyResult, { content: [{ type: 'text', text: '{"text":"sdk1"}' }] }, 'SDK 1.x: the tool result, in one call');

  const modern = new ModernClient({ name: 'wait-test-2', version: '2.0.0' });
  await modern.connect(new ModernTransport(url, { requestInit }));
  t.teardown(() => modern.close());
  const [modernResult] = await Promise.all([modern.callTool({ name: 'delete_file', arguments: { text: 'sdk2' } }), approveWithCli()]);
  t.match(modernResult, { content: [{ type: 'text', text: '{"text":"sdk2"}' }] }, 'SDK 2.x: the tool result, in one call');
  t.equal(upstream.calls(), 2, 'each call reached the upstream once');

  const [denied] = await Promise.all([
    legacy.callTool({ name: 'delete_file', arguments: { text: 'sdk1-denied' } }).then(
      () => null,
      (err: unknown) => err,
    ),
    decideWithCli('--deny', 'not now'),
  ]);
  t.match(
    denied,
    { code: -32003, message: /was denied by alice \("not now"\)/ },
    'SDK 1.x: the denial, in the same call, with who and why',
  );
  t.equal(upstream.calls(), 2, 'a denied call never reaches the upstream');
});
