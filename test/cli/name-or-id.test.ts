// A server, an agent, a key or an extension is named on the command line the same way by every
// command that takes one (cli/name-or-id.ts, issue 24 item 6): by its id, or by a name only it
// carries (case and outer spaces ignored); a name several carry is a usage error listing their ids;
// neither is the daemon's not_found. Also: registering a loopback address outside
// GATEWAY_UPSTREAM_ALLOW warns at once and says how to allow it (item 7). The compiled CLI against
// a real gatewayd that allows no internal address.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { runCli, type CliRun } from '../helpers/cli.js';
import { startTestGateway } from '../helpers/gateway.js';

const gw = await startTestGateway(t);
const home = await fs.mkdtemp(path.join(os.tmpdir(), 'gwctl-names-'));
t.teardown(() => fs.rm(home, { recursive: true, force: true }));

function ctl(args: string[]): Promise<CliRun> {
  return runCli(args, home, { GATEWAYCTL_CONFIG: path.join(home, 'none.json'), GATEWAY_URL: gw.url, GATEWAY_TOKEN: gw.adminToken });
}

let server = '';

t.test(
  'servers register: a loopback address outside GATEWAY_UPSTREAM_ALLOW is registered with a warning saying how to allow it',
  async (t) => {
    const run = await ctl(['servers', 'register', '--name', 'Local Test', '--url', 'http://127.0.0.1:9/mcp', '--json']);
    t.equal(run.code, 0, run.stderr);
    server = run.json.id;
    t.match(run.stderr, /^Warning: The server address resolves to 127\.0\.0\.1 \(loopback\), outside GATEWAY_UPSTREAM_ALLOW/m);
    t.match(run.stderr, /GATEWAY_UPSTREAM_ALLOW=127\.0\.0\.1\/32/);
    t.match(run.json.warnings, [{ code: 'upstream_url_forbidden' }]);
    const pub = await ctl(['servers', 'register', '--name', 'public', '--url', 'https://93.184.215.14/mcp', '--json']);
    t.equal(pub.code, 0, pub.stderr);
    t.equal(pub.json.warnings, undefined, 'a public address: no warning');
    t.notMatch(pub.stderr, /Warning/);
  },
);

t.test('the API answers the warning beside the record; an allowed range gets none', async (t) => {
  const direct = await gw.api('POST', '/api/v1/mcp/servers', { body: { name: 'private', server_url: 'http://10.1.2.3:8080/mcp' } });
  t.equal(direct.status, 201);
  t.match(direct.body.warnings, [{ code: 'upstream_url_forbidden', message: /10\.1\.2\.3 \(private\)/ }]);
  const allowing = await startTestGateway(t, { env: { GATEWAY_UPSTREAM_ALLOW: '127.0.0.0/8' } });
  const allowed = await allowing.api('POST', '/api/v1/mcp/servers', { body: { name: 'local', server_url: 'http://127.0.0.1:9/mcp' } });
  t.equal(allowed.status, 201);
  t.equal(allowed.body.warnings, undefined);
});

t.test('servers commands take the name as they take the id', async (t) => {
  const byId = await ctl(['servers', 'get', server, '--json']);
  t.equal(byId.code, 0, byId.stderr);
  for (const ref of ['Local Test', '  local test ']) {
    const byName = await ctl(['servers', 'get', ref, '--json']);
    t.equal(byName.code, 0, byName.stderr);
    t.equal(byName.json.id, server, `servers get ${JSON.stringify(ref)}`);
  }
  const tools = await ctl(['servers', 'tools', 'local test', '--json']);
  t.equal(tools.code, 0, tools.stderr);
  t.same(tools.json.tools, []);
  // A refusal about the server itself, not not_found: the name reached it.
  const pause = await ctl(['servers', 'pause', 'Local Test']);
  t.equal(pause.code, 1);
  t.match(pause.stderr, /mcp_server_transition_invalid/);
  const scan = await ctl(['servers', 'scan', 'Local Test', '--json']);
  t.match(scan.stdout + scan.stderr, /upstream_url_forbidden/, 'scan by name: refused by the address guard, as warned');
  const updated = await ctl(['servers', 'update', 'Local Test', '--description', 'by name', '--json']);
  t.equal(updated.code, 0, updated.stderr);
  t.equal(updated.json.description, 'by name');
  const content = await ctl([
    'policies',
    'content',
    'set',
    '--direction',
    'results',
    '--detector',
    'pii',
    '--action',
    'FLAG',
    '--server',
    'local test',
    '--json',
  ]);
  t.equal(content.code, 0, content.stderr);
  t.equal(content.json.server_id, server);
  const stop = await ctl(['stop', 'server', 'Local Test', '--json']);
  t.equal(stop.code, 0, stop.stderr);
  t.equal(stop.json.target_id, server);
});

t.test('agents, keys and extensions the same way; a shared name is a usage error naming the ids', async (t) => {
  const bot = (await gw.api('POST', '/api/v1/agents', { body: { name: 'Support Bot' } })).body.id as string;
  const got = await ctl(['agents', 'get', 'support bot', '--json']);
  t.equal(got.json?.id, bot, got.stderr);
  const approved = await ctl(['agents', 'approve', 'Support Bot', '--json']);
  t.equal(approved.code, 0, approved.stderr);
  t.equal(approved.json.status, 'ACTIVE');
  const rule = await ctl(['policies', 'mcp', 'add', '--action', 'DENY', '--agent', 'Support Bot', '--json']);
  t.equal(rule.code, 0, rule.stderr);
  t.equal(rule.json.agent_id, bot);
  t.equal((await ctl(['stop', 'agent', 'support bot', '--json'])).json?.target_id, bot);

  const twins = [
    (await gw.api('POST', '/api/v1/agents', { body: { name: 'twin' } })).body.id,
    (await gw.api('POST', '/api/v1/agents', { body: { name: 'Twin' } })).body.id,
  ] as string[];
  const ambiguous = await ctl(['agents', 'get', 'twin']);
  t.equal(ambiguous.code, 2, 'a usage error');
  for (const id of twins) t.match(ambiguous.stderr, id, 'names each id');
  t.equal((await ctl(['agents', 'get', twins[1]!, '--json'])).json?.id, twins[1], 'the id still works');

  const key = (await gw.api('POST', '/api/v1/keys', { body: { name: 'ci smoke', role: 'viewer' } })).body;
  const revoked = await ctl(['keys', 'revoke', 'CI Smoke', '--json']);
  t.equal(revoked.code, 0, revoked.stderr);
  t.equal(revoked.json.id, key.id);
  t.equal((await gw.api('GET', '/api/v1/project', { token: key.key })).status, 401, 'the key named is revoked');
  const ext = (await gw.api('POST', '/api/v1/extensions', { body: { name: 'browser guard' } })).body;
  const gone = await ctl(['extensions', 'revoke', 'browser guard', '--json']);
  t.equal(gone.json?.id, ext.id, gone.stderr);
});

t.test('neither an id nor a name: not_found in the daemon shape, exit 1', async (t) => {
  for (const args of [
    ['servers', 'get', 'nope'],
    ['agents', 'pause', 'nope'],
    ['keys', 'revoke', 'nope'],
  ]) {
    const run = await ctl(args);
    t.equal(run.code, 1, args.join(' '));
    t.match(run.stderr, /not_found: No (MCP server|agent|key) with id or name "nope" \(see gatewayctl (servers|agents|keys) list\)/);
  }
});
