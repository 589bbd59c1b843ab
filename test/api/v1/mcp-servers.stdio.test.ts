// Stdio servers through the HTTP API: registration (Admin, the operator's allow-list, grants clear
// of the gateway's files, secret variables sealed and never shown), then scan -> approve with the
// real server-everything over stdio in the sandbox, and the stops that end its process.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import t, { type Test } from 'tap';
import { eventually } from '../../helpers/eventually.js';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.js';
import { processesOf } from '../../helpers/stdio-proxy.js';

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const NODE_MODULES = path.join(ROOT, 'node_modules');
const EVERYTHING = path.join(NODE_MODULES, '@modelcontextprotocol/server-everything/dist/index.js');
const STDIO_ON = { GATEWAY_STDIO_COMMANDS: '/usr/bin/node', GATEWAY_SCAN_TIMEOUT_SECONDS: '60' };
const SECRET = 'sk-stdio-secret-value-7f3a9c';

const everything = (over: Record<string, unknown> = {}) => ({
  transport: 'stdio',
  name: 'everything',
  command: 'node',
  args: [EVERYTHING, 'stdio'],
  env: { PLAIN_SETTING: 'visible' },
  secret_env: { API_TOKEN: SECRET },
  grants: [{ path: NODE_MODULES, mode: 'ro' }],
  ...over,
});

/** Everything registration writes, for "a refusal writes nothing". */
const written = async (gw: TestGateway) => ({
  servers: (await gw.db`select count(*)::int as n from mcp_servers`)[0]!.n,
  admin: (await gw.db`select count(*)::int as n from admin_log`)[0]!.n,
});

async function scannedAndApproved(t: Test, gw: TestGateway): Promise<string> {
  const reg = await gw.api('POST', '/api/v1/mcp/servers', { body: everything() });
  t.equal(reg.status, 201, reg.status === 201 ? 'registered' : reg.text);
  const scan = await gw.api('POST', `/api/v1/mcp/servers/${reg.body.id}/scan`);
  t.equal(scan.status, 200, scan.status === 200 ? 'scanned' : scan.text);
  t.match(scan.body, { scanned: true, server_status: 'PENDING_APPROVAL' });
  t.ok(scan.body.tool_count > 0, `${scan.body.tool_count} tools`);
  const tools = (await gw.api('GET', `/api/v1/mcp/servers/${reg.body.id}/tools`)).body.tools as {
    id: string;
    name: string;
    current_fingerprint: string;
    proposed_rule: string | null;
  }[];
  t.ok(
    tools.some((x) => x.name === 'echo'),
    tools.map((x) => x.name).join(', '),
  );
  const activate = await gw.api('POST', `/api/v1/mcp/servers/${reg.body.id}/activate`, {
    body: {
      tools: tools.map((x) => ({ tool_id: x.id, rule: x.proposed_rule ?? 'REQUIRE_APPROVAL', fingerprint: x.current_fingerprint })),
    },
  });
  t.equal(activate.status, 200, activate.status === 200 ? 'approved' : activate.text);
  t.equal(activate.body.status, 'ACTIVE');
  return reg.body.id as string;
}

t.test(
  'registration refusals: stdio off, a program not allowed, an Editor, a grant into the data directory; each writes nothing',
  async (t) => {
    const off = await startTestGateway(t);
    t.ok(
      off.logLines.some((l) => l.includes('stdio servers off (GATEWAY_STDIO_COMMANDS is empty)')),
      'the start-up log says stdio servers are off',
    );
    const before = await written(off);
    const refused = await off.api('POST', '/api/v1/mcp/servers', { body: everything() });
    t.equal(refused.status, 400);
    t.equal(refused.body.error.code, 'mcp_stdio_command_not_allowed');
    t.match(refused.body.error.message, /stdio servers are off: GATEWAY_STDIO_COMMANDS/);
    t.same(await written(off), before);

    const gw = await startTestGateway(t, { env: STDIO_ON });
    t.ok(
      gw.logLines.some((l) => l.includes('stdio servers on, in bubblewrap') && l.includes('/usr/bin/node')),
      'the start-up log names the allowed programs and the sandbox',
    );
    const start = await written(gw);
    const notListed = await gw.api('POST', '/api/v1/mcp/servers', { body: everything({ command: 'sh', args: ['-c', 'id'] }) });
    t.equal(notListed.status, 400);
    t.equal(notListed.body.error.code, 'mcp_stdio_command_not_allowed');
    t.match(notListed.body.error.message, /sh is not allowed: GATEWAY_STDIO_COMMANDS .*\/usr\/bin\/node/);
    const editor = await gw.key('editor');
    const afterKey = await written(gw);
    const byEditor = await gw.api('POST', '/api/v1/mcp/servers', { body: everything(), token: editor });
    t.equal(byEditor.status, 403);
    t.equal(byEditor.body.error.code, 'forbidden');
    t.match(byEditor.body.error.message, /stdio server .*admin role/);
    const intoData = await gw.api('POST', '/api/v1/mcp/servers', {
      body: everything({ grants: [{ path: path.join(gw.dataDir, 'keys'), mode: 'ro' }] }),
    });
    t.equal(intoData.status, 400);
    t.equal(intoData.body.error.code, 'mcp_stdio_grant_invalid');
    const both = await gw.api('POST', '/api/v1/mcp/servers', { body: everything({ env: { API_TOKEN: 'x' } }) });
    t.equal(both.status, 400);
    t.equal(both.body.error.code, 'validation_error');
    const withUrl = await gw.api('POST', '/api/v1/mcp/servers', { body: everything({ server_url: 'https://a.example.com/mcp' }) });
    t.equal(withUrl.status, 400, 'a stdio body has no url');
    t.same(await written(gw), afterKey);
    t.equal(afterKey.servers, start.servers);
  },
);

t.test('a registered stdio server: secret variables sealed, listed by name only, never returned or audited', async (t) => {
  const gw = await startTestGateway(t, { env: STDIO_ON });
  const reg = await gw.api('POST', '/api/v1/mcp/servers', { body: everything() });
  t.equal(reg.status, 201, reg.status === 201 ? 'registered' : reg.text);
  t.match(reg.body, {
    transport: 'stdio',
    server_url: 'stdio:node',
    status: 'PENDING_APPROVAL',
    scan_state: 'never',
    stdio: {
      command: 'node',
      args: [EVERYTHING, 'stdio'],
      cwd: null,
      env: { PLAIN_SETTING: 'visible' },
      secret_env_names: ['API_TOKEN'],
      grants: [{ path: NODE_MODULES, mode: 'ro' }],
      network: false,
      process_mode: 'shared',
    },
    sandbox: 'sandboxed',
    process: { running: false, failures: 0, total_failures: 0, last_end: null },
  });
  const get = await gw.api('GET', `/api/v1/mcp/servers/${reg.body.id}`, { token: await gw.key('viewer') });
  const list = await gw.api('GET', '/api/v1/mcp/servers');
  for (const text of [reg.text, get.text, list.text]) t.notOk(text.includes(SECRET), 'no secret value in an answer');
  t.equal(get.body.sandbox, 'sandboxed');
  t.same(list.body.servers[0].stdio.secret_env_names, ['API_TOKEN']);
  const [row] = await gw.db`select secret_env::text as sealed, transport, command from mcp_servers where id = ${reg.body.id}`;
  t.notOk(row!.sealed.includes(SECRET), 'sealed at rest');
  t.match(JSON.parse(row!.sealed), { v: 1, kid: String, iv: String, tag: String, data: String });
  const log = await gw.db`select details::text as d from admin_log where action = 'mcp.server.register'`;
  t.notOk(log[0]!.d.includes(SECRET), 'the admin log names the variable, never its value');
  t.match(log[0]!.d, /API_TOKEN/);
});

t.test('scan -> approve works for a stdio server as for an HTTP one; its process runs in the sandbox', async (t) => {
  const gw = await startTestGateway(t, { env: STDIO_ON });
  const id = await scannedAndApproved(t, gw);
  const get = await gw.api('GET', `/api/v1/mcp/servers/${id}`);
  t.match(get.body, { status: 'ACTIVE', scan_state: 'succeeded', is_healthy: true, process: { running: true, failures: 0 } });
  t.ok((await processesOf(gw, id)).length > 0, 'the server runs under bwrap with its private directory');
  t.notOk(gw.logLines.join('').includes(SECRET), 'no secret value in the daemon log');
});

t.test('the targeted MCP stop of a server ends its process', async (t) => {
  const gw = await startTestGateway(t, { env: STDIO_ON });
  const id = await scannedAndApproved(t, gw);
  t.ok((await processesOf(gw, id)).length > 0, 'running before the stop');
  const stop = await gw.api('POST', '/api/v1/mcp/emergency-stop', { body: { scope: 'server', target_id: id, reason: 'drill' } });
  t.equal(stop.status, 200, stop.status === 200 ? 'stopped' : stop.text);
  t.same(await processesOf(gw, id), [], 'no process of the server is left when the stop answers');
  t.match((await gw.api('GET', `/api/v1/mcp/servers/${id}`)).body, { status: 'BLOCKED', process: { running: false } });
});

t.test('the project emergency stop ends every stdio process of the project', async (t) => {
  const gw = await startTestGateway(t, { env: STDIO_ON });
  const id = await scannedAndApproved(t, gw);
  t.ok((await processesOf(gw, id)).length > 0, 'running before the stop');
  const stop = await gw.api('POST', '/api/v1/project/emergency-stop', { body: { reason: 'drill' } });
  t.equal(stop.status, 200, stop.status === 200 ? 'stopped' : stop.text);
  t.same(await processesOf(gw, id), [], 'no process of the server is left when the stop answers');
  t.equal((await gw.api('GET', `/api/v1/mcp/servers/${id}`)).body.process.running, false);
});

t.test('deleting a stdio server ends its process', async (t) => {
  const gw = await startTestGateway(t, { env: STDIO_ON });
  const id = await scannedAndApproved(t, gw);
  t.equal((await gw.api('DELETE', `/api/v1/mcp/servers/${id}`)).status, 200);
  t.ok(await eventually(async () => (await processesOf(gw, id)).length === 0), 'gone');
});
