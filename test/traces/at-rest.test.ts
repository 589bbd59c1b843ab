// What the gateway keeps at rest (traces/at-rest.ts): after traffic on every ingest path (verify,
// the MCP proxy's tools/call through a real SDK server, in the gateway's session and the caller's
// own, forwarded and held, and extension events), at audit level standard and at full, no row of
// any table, no file in the data directory (the dead-letter queue) and no log line holds a token
// the test issued, the upstream's sign-in secret or the payment card number, in any spelling.
// At full the originals are kept sealed: reveal gives them back.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import t, { type Test } from 'tap';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { activeServer, startCountingServer, startProxyGateway } from '../helpers/mcp-proxy.js';

const CARD = ['4532015112830366', '4532 0151 1283 0366', '4532-0151-1283-0366'];
const UPSTREAM_SECRET = 'upstream-signin-' + randomBytes(12).toString('hex');

/** The spellings a value may be stored in: itself, hex of its bytes (bytea), base64 at every alignment. */
function spellings(value: string): string[] {
  const out = [value, Buffer.from(value).toString('hex')];
  for (let k = 0; k < 3; k += 1) {
    const b64 = Buffer.concat([Buffer.alloc(k), Buffer.from(value)]).toString('base64');
    out.push(b64.slice(k === 0 ? 0 : 4, -4));
  }
  return out;
}

const px = await startProxyGateway(t, { GATEWAY_LOG_LEVEL: 'debug' });
const { gw } = px;
const up = await startCountingServer(t, { auth: { bearer: UPSTREAM_SECRET } });
const server = await activeServer(
  px,
  up.url,
  { get_weather: 'ALLOW', ping: 'ALLOW' },
  { auth: { auth_method: 'bearer', auth_config: { token: UPSTREAM_SECRET } } },
);
const proxyUrl = `${gw.url}/api/v1/mcp/proxy/${server.id}`;
const projectKey = await gw.key('editor');
const userToken = await gw.key('admin', 'at-rest-admin');
const extension = (await gw.api('POST', '/api/v1/extensions', { body: { name: 'at-rest guard' } })).body as { api_key: string };
const TOKENS = [gw.adminToken, projectKey, userToken, extension.api_key];

const heldTool = 'delete_file'; // admitted with REQUIRE_APPROVAL by activeServer

// The calls below carry tokens in their arguments, which the default content policy refuses; this
// project flags them instead, so that they are forwarded and their traces (findings included) are
// what this test checks at rest.
const flagSecrets = await gw.api('POST', '/api/v1/mcp/content-policies', {
  body: { direction: 'arguments', detector: 'secrets', action: 'FLAG' },
});
if (flagSecrets.status !== 201) throw new Error(`content policy: ${flagSecrets.status} ${flagSecrets.text}`);

/** One round of traffic on every ingest path, each carrying the card (and a token) somewhere. */
async function traffic(t: Test, round: string): Promise<string[]> {
  const ids: string[] = [];
  const verify = await gw.api('POST', '/api/v1/verify', {
    token: projectKey,
    body: {
      prompt: `Charge card ${CARD[0]} and remember ${userToken}`,
      metadata: { note: `card ${CARD[1]}`, round },
      context: { card: CARD[2], key: extension.api_key, digits: Number(CARD[0]) },
      structured_input: { tool_name: 'pay', fields: { card: CARD[0] } },
    },
  });
  t.ok([200, 403].includes(verify.status), `verify answered (${verify.status})`);
  ids.push(verify.body.trace_id);
  // A prompt the policies let through (or mask): its display is what left the gateway, masked at rest.
  const passed = await gw.api('POST', '/api/v1/verify', {
    token: projectKey,
    body: { prompt: `Card ${CARD[1]}, the usual order.`, metadata: { round } },
  });
  t.equal(passed.status, 200, `verify forwarded it (${passed.body.decision})`);

  const call = async (name: string, args: Record<string, unknown>) => {
    const res = await fetch(proxyUrl, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${projectKey}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'x-agent-id': CARD[0],
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } }),
    });
    const text = await res.text();
    t.equal(res.status, 200, `${name} answered: ${text.slice(0, 200)}`);
    return JSON.parse(text.startsWith('{') ? text : text.split('\ndata: ')[1]!.split('\n')[0]!) as {
      result?: unknown;
      error?: { data?: { trace_id?: string } };
    };
  };
  await call('get_weather', { city: `Paris ${CARD[1]}`, card: CARD[0], token: projectKey, n: Number(CARD[0]) });
  const held = await call(heldTool, { card: CARD[2], [CARD[0]]: 'as a key', token: userToken });
  t.ok(held.error?.data?.trace_id, 'the call without an ALLOW rule is held for approval');

  // The caller's own MCP session: the SDK client, relayed.
  const client = new Client({ name: 'at-rest', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(proxyUrl), {
    requestInit: { headers: { authorization: `Bearer ${projectKey}` } },
  });
  await client.connect(transport);
  const relayed = await client.callTool({ name: 'ping', arguments: { query: `card ${CARD[2]} ${extension.api_key}` } });
  t.notOk(relayed.isError, 'the relayed call was answered');
  await transport.terminateSession().catch(() => undefined);
  await client.close();

  const event = await gw.api('POST', '/api/v1/webhooks/ingest', {
    token: extension.api_key,
    body: {
      event_type: 'dlp.prompt.blocked',
      source: `guard ${CARD[1]}`,
      card: CARD[0],
      nested: { cards: [CARD[1], CARD[2]], n: Number(CARD[0]) },
      leaked: projectKey,
    },
  });
  t.equal(event.status, 202, event.text);
  ids.push(event.body.trace_id);
  return ids;
}

let standard: string[] = [];
let full: string[] = [];
t.test('traffic on every path, at audit level standard and then full', async (t) => {
  t.match(TOKENS, [/^ggu_/, /^gg[pu]_/, /^ggu_/, /^gge_/], 'tokens of every kind were issued');
  standard = await traffic(t, 'standard');
  t.equal((await gw.api('PATCH', '/api/v1/project', { body: { audit_detail_level: 'full' } })).status, 200);
  full = await traffic(t, 'full');
  await px.proxy.outcomes.flush();
  await gw.gateway.writer.flush();
});

t.test('raw originals: none at standard; at full sealed, and reveal gives the original back', async (t) => {
  const rawOf = async (id: string) =>
    (await gw.db`select body ? 'raw' as has, body -> 'raw' as raw from trace_content where trace_id = ${id}`)[0]!;
  for (const id of standard) t.equal((await rawOf(id)).has, false, `no raw original at standard (${id})`);
  const calls = await gw.db<{ id: string; round: string }[]>`
    select t.id::text as id, c.body ? 'raw' as has from traces t join trace_content c on c.trace_id = t.id
    where t.trace_type in ('MCP_TOOL_CALL', 'EXTERNAL_EVENT', 'VERIFY') order by t.sequence_num`;
  t.ok(calls.length >= 10, 'every path wrote its traces');
  for (const id of full) {
    const row = await rawOf(id);
    t.equal(row.has, true, `a raw original at full (${id})`);
    t.match(row.raw, { v: 1, dek: String, sealed: Object }, 'sealed with the project data key');
    const revealed = await gw.api('GET', `/api/v1/traces/${id}/reveal`, { token: userToken });
    t.equal(revealed.status, 200, revealed.text);
    t.ok(JSON.stringify(revealed.body.raw).includes(CARD[0]), 'reveal gives back the original with the card');
  }
  const mcpFull = await gw.db<{ id: string }[]>`
    select t.id::text as id from traces t join trace_content c on c.trace_id = t.id
    where t.trace_type = 'MCP_TOOL_CALL' and c.body ? 'raw'`;
  t.equal(mcpFull.length, 3, 'the three tools/call decisions at full (forwarded, held, relayed) keep a sealed original');
  const revealed = await gw.api('GET', `/api/v1/traces/${mcpFull[0]!.id}/reveal`, { token: userToken });
  t.equal(revealed.status, 200, revealed.text);
  t.match(revealed.body.raw, { name: String, arguments: Object });
});

t.test('the display forms are masked', async (t) => {
  // biome-ignore lint/suspicious/noExplicitAny: an event body of any shape, read field by field in the assertions
  const [event] = await gw.db<{ body: Record<string, any> }[]>`select body from trace_content where trace_id = ${standard[1]!}`;
  t.match(event!.body.details.payload, {
    card: '[CREDIT_CARD_1]',
    nested: { cards: ['[CREDIT_CARD_1]', '[CREDIT_CARD_1]'], n: '[CREDIT_CARD_1]' },
    leaked: '[GATEWAY_TOKEN_1]',
  });
  t.equal(event!.body.metadata.source, 'guard [CREDIT_CARD_1]');
  const [forwarded] = await gw.db<{ display: string }[]>`
    select c.body ->> 'display' as display from traces t join trace_content c on c.trace_id = t.id
    where t.trace_type = 'MCP_TOOL_CALL' and c.body ->> 'outcome' = 'forwarded' order by t.sequence_num limit 1`;
  t.match(forwarded!.display, /"card":"\[CREDIT_CARD_1\]"/, 'the forwarded call is shown masked');
});

t.test('no table, data file or log line holds an issued token, the upstream secret or the card', async (t) => {
  const needles = [
    ...TOKENS.flatMap((v) => spellings(v).map((s) => ({ what: `token ${v.slice(0, 6)}`, s }))),
    ...spellings(UPSTREAM_SECRET).map((s) => ({ what: 'upstream secret', s })),
    ...CARD.flatMap((v) => spellings(v).map((s) => ({ what: `card "${v}"`, s }))),
  ];
  const tables = await gw.db<{ name: string }[]>`
    select table_name as name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE' order by 1`;
  t.ok(tables.length > 20, `${tables.length} tables`);
  let rows = 0;
  const found: string[] = [];
  for (const { name } of tables) {
    const dump = await gw.db.unsafe<{ row: string }[]>(`select row_to_json(x)::text as row from public."${name.replaceAll('"', '""')}" x`);
    rows += dump.length;
    for (const { row } of dump) for (const n of needles) if (row.includes(n.s)) found.push(`${name}: ${n.what} in ${row.slice(0, 300)}`);
  }
  t.ok(rows > 50, `${rows} rows read`);
  t.same(found, [], 'no row holds any of them');

  const files: string[] = [];
  const walk = async (dir: string): Promise<void> => {
    for (const e of await fs.readdir(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) await walk(p);
      else if (e.name !== 'admin.token') files.push(p); // the first Admin token's hand-over file, by design
    }
  };
  await walk(gw.dataDir);
  const inFiles: string[] = [];
  for (const f of files) {
    const text = (await fs.readFile(f)).toString('latin1');
    for (const n of needles) if (text.includes(n.s)) inFiles.push(`${f}: ${n.what}`);
  }
  t.same(inFiles, [], `no file of the data directory holds any of them (${files.length} files)`);

  const log = gw.logLines.join('');
  t.ok(log.length > 1000, 'the daemon logged');
  t.same(
    needles.filter((n) => log.includes(n.s)).map((n) => n.what),
    [],
    'no log line holds any of them',
  );
});
