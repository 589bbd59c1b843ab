// The argument bypasses of issue 25 (items 3, 5 and 6), through the proxy with a real SDK client and
// a real SDK server upstream: a secret as an object key, behind 200 decoys, with a zero-width
// character inside, in base64 or percent-encoding, with its prefix in another case, or split across
// two arguments is refused before the upstream sees the call; the refusal and the trace never carry
// it. An upper-cased token of a mixed-case format is no longer the token and goes through (secret-case.ts).
import t from 'tap';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { McpError } from '@modelcontextprotocol/sdk/types.js';
import { activeServer, callTraces, startCountingServer, startProxyGateway } from '../../helpers/mcp-proxy.js';

const GHP = 'ghp_Zq8vLw3nPx7rTb2mKc9sYh4dFj6gNa1eRu5o';
const AWS = 'AKIAZ3MSJV4WWQ5RMNBV';

const CASES: ReadonlyArray<readonly [item: string, what: string, args: Record<string, unknown>, entity: string]> = [
  ['3', 'a GitHub token as an object key', { city: 'Paris', [GHP]: 1 }, 'GITHUB_TOKEN'],
  ['3', 'an AWS key id as a nested object key', { city: 'Paris', options: { [AWS]: true } }, 'AWS_ACCESS_KEY'],
  ['5', 'a token after 200 decoys', { city: `${`ghp_${'a'.repeat(36)} `.repeat(200)}${GHP}` }, 'GITHUB_TOKEN'],
  ['6', 'a zero-width space inside', { city: `${GHP.slice(0, 10)}\u200b${GHP.slice(10)}` }, 'GITHUB_TOKEN'],
  ['6', 'base64', { city: Buffer.from(`token=${GHP}`).toString('base64') }, 'GITHUB_TOKEN'],
  ['6', 'percent-encoding', { city: [...GHP].map((c) => `%${c.charCodeAt(0).toString(16)}`).join('') }, 'GITHUB_TOKEN'],
  ['6', 'the prefix upper-cased', { city: `GHP_${GHP.slice(4)}` }, 'GITHUB_TOKEN'],
  ['6', 'split across two arguments', { city: GHP.slice(0, 14), country: GHP.slice(14) }, 'GITHUB_TOKEN'],
];

t.test('secrets hidden in arguments are refused before the upstream sees them (issue 25, items 3, 5, 6)', async (t) => {
  const px = await startProxyGateway(t);
  const { gw } = px;
  const up = await startCountingServer(t);
  const server = await activeServer(px, up.url, { get_weather: 'ALLOW' });
  const client = new Client({ name: 'bypass-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${px.url}/api/v1/mcp/proxy/${server.id}`), {
      requestInit: { headers: { authorization: `Bearer ${gw.adminToken}` } },
    }),
  );
  t.teardown(() => client.close());

  for (const [item, what, args, entity] of CASES) {
    const err = await client.callTool({ name: 'get_weather', arguments: args }).then(
      () => null,
      (e: unknown) => e,
    );
    t.ok(err instanceof Error, `item ${item}, ${what}: refused`);
    const data = (err as McpError | null)?.data as { reason?: string; findings?: Array<{ entity: string }> } | undefined;
    t.equal(data?.reason, 'CONTENT_BLOCKED', `item ${item}, ${what}: CONTENT_BLOCKED`);
    t.ok(
      data?.findings?.some((f) => f.entity === entity),
      `item ${item}, ${what}: ${entity}`,
    );
    t.notMatch(JSON.stringify(data ?? {}), GHP.slice(4, 20), `item ${item}, ${what}: the refusal does not carry the token`);
  }
  t.equal(up.calls(), 0, 'the upstream saw none of them');

  const flattened = await client.callTool({ name: 'get_weather', arguments: { city: GHP.toUpperCase() } });
  t.same(up.argumentsSeen.at(-1), { city: GHP.toUpperCase() }, 'an upper-cased base62 token is not the token: forwarded');
  t.notOk(flattened.isError);

  const traces = await callTraces(gw);
  t.same(
    traces.map((x) => x.decision),
    [...CASES.map(() => 'BLOCKED'), 'PASSED'],
  );
  const stored = JSON.stringify(await gw.db`select body from trace_content`);
  for (const value of [GHP, AWS, GHP.slice(4, 20)]) t.notMatch(stored, value, 'no stored trace holds the token or a part of it');
});
