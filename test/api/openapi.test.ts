// The OpenAPI document (daemon/api/openapi.ts): served to any role, every route of the table in it
// with its role and schemas, and docs/openapi.json is that document (UPDATE_DOCS=1 rewrites it:
// npm run docs:openapi).
import fs from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { createConfig, lintFromString } from '@redocly/openapi-core';
import t from 'tap';
import { startTestGateway } from '../helpers/gateway.js';

const file = fileURLToPath(new URL('../../../docs/openapi.json', import.meta.url));

t.test('GET /api/v1/openapi.json lists every route with its role and schemas; docs/openapi.json is current', async (t) => {
  const gw = await startTestGateway(t);
  const res = await gw.api('GET', '/api/v1/openapi.json', { token: await gw.key('viewer') });
  t.equal(res.status, 200);
  const doc = res.body as { openapi: string; paths: Record<string, Record<string, Record<string, unknown>>> };
  t.equal(doc.openapi, '3.1.0');
  const missing = gw.gateway.http.routes
    .map((r) => ({ method: r.method.toLowerCase(), path: r.path.replace(/:(\w+)/g, '{$1}'), auth: r.auth }))
    .filter((r) => doc.paths[r.path]?.[r.method]?.['x-min-role'] !== r.auth);
  t.same(missing, [], 'every route of the table, with its minimum role');
  t.match(doc.paths['/api/v1/agents']!.post, {
    requestBody: { content: { 'application/json': { schema: { type: 'object', properties: { name: { type: 'string' } } } } } },
  });
  t.match(doc.paths['/api/v1/traces']!.get!.parameters, [{ name: 'time_range', in: 'query' }]);
  t.match(doc.paths['/api/v1/mcp/servers/{id}']!.get!.parameters, [{ name: 'id', in: 'path', required: true }]);
  t.equal((await gw.api('GET', '/api/v1/openapi.json', { token: null })).status, 401, 'not public');

  const text = `${JSON.stringify(doc, null, 2)}\n`;
  if (process.env.UPDATE_DOCS === '1') await fs.writeFile(file, text);
  t.equal(
    await fs.readFile(file, 'utf8').catch(() => ''),
    text,
    'docs/openapi.json is the served document (npm run docs:openapi rewrites it)',
  );
});

t.test(
  "the document passes a linter's recommended rules: every operation has a summary and a description, servers is not empty",
  async (t) => {
    const config = await createConfig({ extends: ['recommended'] });
    const problems = await lintFromString({ source: await fs.readFile(file, 'utf8'), absoluteRef: file, config });
    t.same(
      problems.map((p) => `${p.severity} ${p.ruleId}: ${p.message} (${p.location[0]?.pointer ?? ''})`),
      [],
      '@redocly/openapi-core, recommended ruleset',
    );
    const doc = JSON.parse(await fs.readFile(file, 'utf8')) as {
      servers?: unknown[];
      paths: Record<string, Record<string, { summary?: string; description?: string }>>;
    };
    t.ok((doc.servers?.length ?? 0) > 0, 'servers');
    const bare = Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.entries(ops)
        .filter(([, op]) => !op.summary || !op.description)
        .map(([method]) => `${method.toUpperCase()} ${path}`),
    );
    t.same(bare, [], 'a summary and a description on every operation');
  },
);
