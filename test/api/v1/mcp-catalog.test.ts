// /api/v1/mcp/templates, /mcp/servers/from-template and /mcp/registry over HTTP: the routes served
// by the daemon's own HTTP front (auth, roles, errors) on the real database of a test gateway.
import t from 'tap';
import { loadRegistryCatalog, searchRegistry } from '../../../daemon/mcp/catalog/official-registry.js';
import { TEMPLATES } from '../../../daemon/mcp/catalog/templates.js';
import { registryQuery } from '../../../shared/mcp-catalog-schemas.js';
import { startCatalogServer as startCatalog } from '../../helpers/catalog-server.js';
import type { ApiResponse, TestGateway } from '../../helpers/gateway.js';

/** Row counts of every table but the unlogged per-minute request budget, which each request touches. */
async function rowCounts(gw: TestGateway): Promise<Record<string, number>> {
  const tables = await gw.db<{ table_name: string }[]>`
    select table_name from information_schema.tables
    where table_schema = 'public' and table_type = 'BASE TABLE' and table_name <> 'rate_windows' order by table_name`;
  const counts: Record<string, number> = {};
  for (const { table_name: name } of tables) counts[name] = Number((await gw.db`select count(*)::int as n from ${gw.db(name)}`)[0]!.n);
  return counts;
}

t.test('templates: any role lists every template with the spec fields, all locked', async (t) => {
  const c = await startCatalog(t);
  const viewer = await c.gw.key('viewer');
  const res = await c.call('GET', '/api/v1/mcp/templates', { token: viewer });
  t.equal(res.status, 200);
  t.same(Object.keys(res.body), ['templates']);
  t.same(res.body.templates, JSON.parse(JSON.stringify(TEMPLATES)));
  t.ok(res.body.templates.length >= 6);
  t.ok(
    res.body.templates.every(
      (x: { available: boolean; unavailable_reason: string }) => !x.available && x.unavailable_reason === 'auth_method_unsupported',
    ),
  );
  t.equal((await c.call('GET', '/api/v1/mcp/templates', { token: null })).status, 401);
});

t.test('from-template: always 409 naming the sign-in method, and nothing is written', async (t) => {
  const c = await startCatalog(t);
  const editor = await c.gw.key('editor', 'erin');
  const viewer = await c.gw.key('viewer');
  await c.call('GET', '/api/v1/mcp/templates', { token: editor });
  const before = await rowCounts(c.gw);
  t.ok(
    ['credentials', 'admin_log', 'traces'].every((name) => name in before),
    'every table of the real schema is counted',
  );

  for (const body of [{ template_id: 'github' }, { template_id: 'slack', name: 'team slack' }]) {
    const res = await c.call('POST', '/api/v1/mcp/servers/from-template', { token: editor, body });
    t.equal(res.status, 409);
    t.equal(res.body.error.code, 'mcp_template_unavailable');
    t.match(res.body.error.message, /OAuth 2\.0/);
    t.match(res.body.error.message, /oauth2/);
    t.equal(res.body.error.request_id, res.headers.get('x-request-id'));
  }
  const admin = await c.call('POST', '/api/v1/mcp/servers/from-template', { body: { template_id: 'notion' } });
  t.equal(admin.body.error.code, 'mcp_template_unavailable', 'an Admin is refused the same way');

  const unknown = await c.call('POST', '/api/v1/mcp/servers/from-template', { token: editor, body: { template_id: 'no-such-template' } });
  t.equal(unknown.status, 404);
  t.equal(unknown.body.error.code, 'not_found');
  for (const bad of [
    {},
    { template_id: '' },
    { template_id: 7 },
    { template_id: 'github', extra: true },
    { template_id: 'github', name: '  ' },
  ]) {
    const res = await c.call('POST', '/api/v1/mcp/servers/from-template', { token: editor, body: bad });
    t.equal(res.status, 400, JSON.stringify(bad));
    t.equal(res.body.error.code, 'validation_error');
  }
  t.equal((await c.call('POST', '/api/v1/mcp/servers/from-template', { token: editor, body: '{"template_id":' })).status, 400);
  const forbidden = await c.call('POST', '/api/v1/mcp/servers/from-template', { token: viewer, body: { template_id: 'github' } });
  t.equal(forbidden.status, 403);
  t.equal(forbidden.body.error.code, 'forbidden');

  t.same(await rowCounts(c.gw), before, 'no table gained or lost a row');
});

t.test('registry: items, next_cursor, total; filters and paging; 400 for bad values', async (t) => {
  const c = await startCatalog(t);
  const viewer = await c.gw.key('viewer');
  const catalog = loadRegistryCatalog();
  const first = await c.call('GET', '/api/v1/mcp/registry', { token: viewer });
  t.equal(first.status, 200);
  t.same(Object.keys(first.body).sort(), ['items', 'next_cursor', 'total']);
  t.same(first.body, searchRegistry(catalog, registryQuery.parse({})));
  t.ok(first.body.total > 0, 'the bundled snapshot is not empty');
  t.ok(first.body.items.length <= 50, 'default page size 50');

  const seen: string[] = [];
  let cursor: string | null = null;
  do {
    const res: ApiResponse = await c.call('GET', `/api/v1/mcp/registry?limit=7${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, {
      token: viewer,
    });
    t.equal(res.status, 200);
    t.equal(res.body.total, catalog.items.length);
    seen.push(...res.body.items.map((i: { registry_name: string }) => i.registry_name));
    cursor = res.body.next_cursor;
  } while (cursor !== null && seen.length <= catalog.items.length);
  t.same(
    seen,
    catalog.items.map((i) => i.registry_name),
    'paging returns every item exactly once',
  );

  const frontable = await c.call('GET', '/api/v1/mcp/registry?frontable=true&limit=100', { token: viewer });
  t.ok(frontable.body.items.length > 0 && frontable.body.items.every((i: { frontable: boolean }) => i.frontable));
  const not = await c.call('GET', '/api/v1/mcp/registry?frontable=false&limit=100', { token: viewer });
  t.equal(frontable.body.total + not.body.total, catalog.items.length);
  const name = catalog.items[0]!.registry_name;
  const found = await c.call('GET', `/api/v1/mcp/registry?q=${encodeURIComponent(name.toUpperCase())}`, { token: viewer });
  t.ok(
    found.body.items.some((i: { registry_name: string }) => i.registry_name === name),
    'q ignores case',
  );
  t.equal((await c.call('GET', '/api/v1/mcp/registry?unknown=1')).status, 200, 'unknown query keys are ignored');

  for (const bad of ['limit=0', 'limit=101', 'limit=abc', 'frontable=yes', 'frontable=1', 'cursor=']) {
    const res = await c.call('GET', `/api/v1/mcp/registry?${bad}`, { token: viewer });
    t.equal(res.status, 400, bad);
    t.equal(res.body.error.code, 'validation_error');
  }
  t.match((await c.call('GET', '/api/v1/mcp/registry?limit=500')).body.error.message, /limit/);
  t.equal((await c.call('GET', '/api/v1/mcp/registry', { token: null })).status, 401);
});
