// Malformed input is never a 5xx (issue 15, item 5): path ids and query values the database cannot
// store, JSON numbers that overflow to infinity, JSON nested too deep, refinements that would throw,
// request targets the URL parser refuses, odd Accept-Language. Each is a 4xx with the error object
// and writes nothing.
import net from 'node:net';
import t, { type Test } from 'tap';
import { z } from 'zod';
import type { TestGateway } from '../helpers/gateway.js';
import { startTestGateway } from '../helpers/gateway.js';
import { SAMPLE_TOOLS, startLegacyMcpServer } from '../helpers/mcp-servers.js';
import { rowCounts } from '../helpers/row-counts.js';
import { MAX_JSON_DEPTH, jsonBodyProblem } from '../../daemon/http/json-check.js';
import { parseRequestTarget } from '../../daemon/http/request-target.js';
import { pickLocale } from '../../daemon/http/locale.js';

const JSON_RPC = { jsonrpc: '2.0', id: 1, method: 'tools/list' };

// biome-ignore lint/suspicious/noExplicitAny: response bodies of many shapes, read field by field in the assertions
function errorObject(t: Test, res: { status: number; headers: Headers; body: any }, status: number, code: string, what: string): void {
  t.equal(res.status, status, `${what}: status`);
  t.equal(res.body?.error?.code, code, `${what}: code`);
  t.equal(res.body?.error?.request_id, res.headers.get('x-request-id'), `${what}: request id`);
}

const withParams = (gw: TestGateway) => gw.gateway.http.routes.filter((r) => r.path.includes('/:'));
const fill = (path: string, id: string) => path.replace(/:[a-z_]+/g, id);

t.test('a NUL or an over-long id in any path parameter is 404 not_found and writes nothing', async (t) => {
  const gw = await startTestGateway(t);
  const before = await rowCounts(gw.db);
  const samples: [string, string][] = [
    ['GET', '/api/v1/agents/1%00'],
    ['POST', '/api/v1/mcp/proxy/%00'],
    ['DELETE', '/api/v1/mcp/policies/x%00'],
    ['POST', '/api/v1/mcp/approvals/x%00/decide'],
    ['POST', '/api/v1/mcp/servers/%00/reject'],
    ['GET', '/api/v1/mcp/servers/x%00y/tools'],
  ];
  for (const [method, path] of samples) {
    errorObject(
      t,
      await gw.api(method, path, method === 'POST' ? { body: path.includes('proxy') ? JSON_RPC : { approved: true } } : {}),
      404,
      'not_found',
      `${method} ${path}`,
    );
  }
  const routes = withParams(gw);
  t.ok(routes.length >= 20, 'the route table has routes with path parameters');
  for (const route of routes) {
    for (const id of ['x%00', 'a'.repeat(201)]) {
      const body = route.method === 'GET' || route.method === 'DELETE' ? undefined : route.path.includes('proxy') ? JSON_RPC : {};
      const res = await gw.api(route.method, fill(route.path, id), { body });
      errorObject(t, res, 404, 'not_found', `${route.method} ${route.path} with ${id.slice(0, 12)}`);
    }
  }
  t.same(await rowCounts(gw.db), before, 'nothing written');
  t.notOk(
    gw.logLines.some((l) => l.includes('"level":50')),
    'no unexpected error logged',
  );
});

t.test('a NUL in a query value is 400 validation_error; a query string on a route that takes none is ignored', async (t) => {
  const gw = await startTestGateway(t);
  const agent = (await gw.api('POST', '/api/v1/agents', { body: { name: 'a' } })).body;
  const policy = await gw.api('POST', '/api/v1/mcp/policies', { body: { action: 'DENY', agent_id: agent.id } });
  t.equal(policy.status, 201);
  const before = await rowCounts(gw.db);
  for (const path of [
    '/api/v1/agents?cursor=%00',
    '/api/v1/traces?agent_id=a%00',
    '/api/v1/export?environment=%00',
    '/api/v1/mcp/registry?q=%00',
  ]) {
    errorObject(t, await gw.api('GET', path), 400, 'validation_error', path);
  }
  errorObject(
    t,
    await gw.api('DELETE', `/api/v1/mcp/policies/${policy.body.id}?x=%00`),
    400,
    'validation_error',
    'DELETE with a NUL in the query',
  );
  errorObject(
    t,
    await gw.api('DELETE', `/api/v1/mcp/policies/${policy.body.id}?%00=1`),
    400,
    'validation_error',
    'DELETE with a NUL in a query name',
  );
  t.same(await rowCounts(gw.db), before, 'nothing written');
  errorObject(
    t,
    await gw.api('DELETE', `/api/v1/mcp/policies/${policy.body.id}?b=%ff`),
    400,
    'validation_error',
    'bytes that are not UTF-8',
  );
  const ignored = await gw.api('DELETE', `/api/v1/mcp/policies/${policy.body.id}?a=1&b=%c3%a9&c`);
  t.equal(ignored.status, 200, 'other query strings on DELETE /mcp/policies/{id} are ignored');
  t.notOk(
    gw.logLines.some((l) => l.includes('"level":50')),
    'no unexpected error logged',
  );
});

t.test(
  'JSON that overflows to infinity or nests deeper than the limit is 400 at body reading on every route, and writes nothing',
  async (t) => {
    const gw = await startTestGateway(t);
    const ext = (await gw.api('POST', '/api/v1/extensions', { body: { name: 'e' } })).body.api_key as string;
    const before = await rowCounts(gw.db);
    const sample = await gw.api('POST', '/api/v1/webhooks/ingest', { token: ext, body: '{"event_type":"x","source":"s","detail":-1e999}' });
    errorObject(t, sample, 400, 'validation_error', 'detail -1e999 on /webhooks/ingest');
    t.match(sample.body.error.message, /infinity/);
    errorObject(
      t,
      await gw.api('POST', '/api/v1/verify', { body: '{"prompt":"hi","metadata":{"x":[1E400]}}' }),
      400,
      'validation_error',
      '1E400 in verify metadata',
    );
    const deep = (n: number) => '['.repeat(n) + ']'.repeat(n);
    for (const route of gw.gateway.http.routes.filter((r) => r.method !== 'GET' && r.method !== 'DELETE')) {
      const path = fill(route.path, 'x');
      const token = route.auth === 'extension' ? ext : undefined;
      errorObject(
        t,
        await gw.api(route.method, path, { token, body: `{"a":${deep(10_000)}}` }),
        400,
        'validation_error',
        `${route.method} ${route.path}: 10,000 levels`,
      );
      errorObject(
        t,
        await gw.api(route.method, path, { token, body: '{"a":1e999}' }),
        400,
        'validation_error',
        `${route.method} ${route.path}: 1e999`,
      );
    }
    t.same(await rowCounts(gw.db), before, 'nothing written');
    const nested = (n: number) => '{"prompt":"hi","metadata":' + '{"a":'.repeat(n - 1) + '1' + '}'.repeat(n - 1) + '}';
    t.equal((await gw.api('POST', '/api/v1/verify', { body: nested(MAX_JSON_DEPTH) })).status, 200, `${MAX_JSON_DEPTH} levels pass`);
    const over = await gw.api('POST', '/api/v1/verify', { body: nested(MAX_JSON_DEPTH + 1) });
    errorObject(t, over, 400, 'validation_error', `${MAX_JSON_DEPTH + 1} levels`);
    t.match(over.body.error.message, /deeper than 100 levels/);
    t.notOk(
      gw.logLines.some((l) => l.includes('"level":50')),
      'no unexpected error logged',
    );
  },
);

t.test('the body check: depth counted from the body itself, numbers, text, without recursion', async (t) => {
  t.equal(jsonBodyProblem(JSON.parse('[]')), null);
  t.equal(jsonBodyProblem(JSON.parse('['.repeat(100) + ']'.repeat(100))), null, '100 levels');
  t.match(jsonBodyProblem(JSON.parse('['.repeat(101) + ']'.repeat(101))), /deeper/, '101 levels');
  t.match(jsonBodyProblem(JSON.parse('['.repeat(1_000_000) + ']'.repeat(1_000_000))), /deeper/, 'a million levels, no stack overflow');
  t.match(jsonBodyProblem({ a: [1, { b: -Infinity }] }), /infinity/);
  t.match(jsonBodyProblem({ 'k\u0000': 1 }), /NUL/);
  t.equal(jsonBodyProblem({ a: 'x\u0000' }, { allowNul: true }), null);
  t.equal(jsonBodyProblem({ a: '\ud800' }, { skipText: true }), null, 'text is skipped when the body has no \\u escape');
  t.equal(jsonBodyProblem({ a: 1.7976931348623157e308, b: -0, c: 'ok' }), null);
});

t.test('a zod refinement never throws: server_url "true" is 400, and every shared schema survives hostile values', async (t) => {
  const gw = await startTestGateway(t);
  const before = await rowCounts(gw.db);
  for (const url of ['true', 'http://', '::', 'http://[', '%']) {
    errorObject(
      t,
      await gw.api('POST', '/api/v1/mcp/servers', { body: { name: 's', server_url: url } }),
      400,
      'validation_error',
      `server_url ${url}`,
    );
    errorObject(
      t,
      await gw.api('POST', '/api/v1/verify/policies', {
        body: { name: 'p', detector: 'pii', action: 'REDIRECT', action_config: { redirect_url: url } },
      }),
      400,
      'validation_error',
      `redirect_url ${url}`,
    );
  }
  t.same(await rowCounts(gw.db), before, 'nothing written');
  const hostile: unknown[] = [
    'true',
    '',
    ' ',
    '\u0000',
    'http://',
    'http://[',
    '::',
    'a'.repeat(3000),
    0,
    -1,
    1.5,
    1e308,
    true,
    null,
    [],
    {},
    ['x'],
    { a: 1 },
  ];
  const modules = [
    'schemas',
    'agent-schemas',
    'mcp-schemas',
    'mcp-catalog-schemas',
    'trace-schemas',
    'verify-policy-schemas',
    'verify-request-schema',
    'verify-schemas',
    'export-schemas',
    'command-center-schemas',
  ];
  let checked = 0;
  for (const name of modules) {
    const mod = (await import(`../../shared/${name}.js`)) as Record<string, unknown>;
    for (const [exported, schema] of Object.entries(mod)) {
      if (!(schema instanceof z.ZodType)) continue;
      const shape =
        (schema as unknown as { shape?: Record<string, unknown> }).shape
        ?? (schema as unknown as { def?: { in?: { shape?: Record<string, unknown> } } }).def?.in?.shape
        ?? {};
      const values: unknown[] = [...hostile];
      for (const key of Object.keys(shape)) for (const v of hostile) values.push({ [key]: v });
      for (const v of values) {
        try {
          schema.safeParse(v);
        } catch (err) {
          t.fail(`${name}.${exported} threw on ${JSON.stringify(v)?.slice(0, 60)}: ${(err as Error).message}`);
        }
        checked += 1;
      }
    }
  }
  t.ok(checked > 500, `${checked} parses, none threw`);
});

t.test('a request target the URL parser refuses is 404 and the daemon lives on', async (t) => {
  const gw = await startTestGateway(t);
  const port = Number(new URL(gw.url).port);
  const raw = (line: string) =>
    new Promise<string>((resolve) => {
      const socket = net.connect(port, '127.0.0.1');
      let out = '';
      socket.on('data', (d) => {
        out += d.toString('latin1');
      });
      socket.on('close', () => resolve(out));
      socket.on('error', () => resolve(out));
      socket.write(`${line}\r\nHost: x\r\nConnection: close\r\n\r\n`);
    });
  for (const target of ['//', '//@', '/\\', '//[', '//x%00y/', '//:99999/x', '//evil/api/v1/project']) {
    const answer = await raw(`GET ${target} HTTP/1.1`);
    t.match(answer, /^HTTP\/1\.1 404 /, `GET ${target}: 404`);
    t.match(answer, /"code":"not_found"/);
  }
  t.match(await raw('GET http://gateway/healthz HTTP/1.1'), /^HTTP\/1\.1 200 /, 'absolute form still routes');
  t.equal((await gw.api('GET', '/healthz')).status, 200, 'the daemon still answers');
  t.same(parseRequestTarget('/a/b?x=1&y=%00'), { pathname: '/a/b', searchParams: new URLSearchParams('x=1&y=%00'), rawQuery: 'x=1&y=%00' });
  t.equal(parseRequestTarget('//').pathname, '//');
  t.equal(parseRequestTarget(undefined).pathname, '/');
});

t.test('Accept-Language never breaks a request: the verdict route and verify with odd values', async (t) => {
  const gw = await startTestGateway(t, { env: { GATEWAY_UPSTREAM_ALLOW: '127.0.0.0/8', GATEWAY_UPSTREAM_TIMEOUT_SECONDS: '5' } });
  const upstream = await startLegacyMcpServer(t, { tools: [...SAMPLE_TOOLS] });
  const server = (await gw.api('POST', '/api/v1/mcp/servers', { body: { name: 's', server_url: upstream.url } })).body;
  t.equal((await gw.api('POST', `/api/v1/mcp/servers/${server.id}/scan`)).body.scanned, true);
  const tool = (await gw.api('GET', `/api/v1/mcp/servers/${server.id}/tools`)).body.tools[0];
  const odd = [
    'de;q=1e999',
    '*',
    '__proto__',
    'constructor;q=1',
    'fr;q=NaN, de;q=-1',
    ','.repeat(5000),
    'x'.repeat(8000),
    'de-DE-x-\u00e9\u00ff;q=0.9',
    ';;;q=;=,',
    'en;q=0, de;q=0, fr;q=0',
  ];
  for (const value of odd) {
    const verdict = await gw.api('POST', `/api/v1/mcp/servers/${server.id}/tools/${tool.id}/verdict`, {
      body: { action: 'DENY' },
      headers: { 'accept-language': value },
    });
    t.equal(verdict.status, 200, `verdict with Accept-Language ${value.slice(0, 20)}`);
    const refused = await gw.api('POST', '/api/v1/verify', { body: { prompt: 1 }, headers: { 'accept-language': value } });
    errorObject(t, refused, 400, 'validation_error', `verify with Accept-Language ${value.slice(0, 20)}`);
    t.doesNotThrow(() => pickLocale(value));
  }
  t.notOk(
    gw.logLines.some((l) => l.includes('"level":50')),
    'no unexpected error logged',
  );
});
