// gatewayctl policies content list|set|unset, the compiled CLI against a real gatewayd: set creates
// a policy or changes the one its scope has, unset removes it (the wider one applies again), list
// shows what is in force; refusals (a Viewer, a bad configuration, a missing policy) write nothing.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { runCli, type CliRun } from '../../../helpers/cli.js';
import { startTestGateway } from '../../../helpers/gateway.js';
import { startLegacyMcpServer, SAMPLE_TOOLS } from '../../../helpers/mcp-servers.js';

const gw = await startTestGateway(t, { env: { GATEWAY_UPSTREAM_ALLOW: '127.0.0.0/8' } });
const home = await fs.mkdtemp(path.join(os.tmpdir(), 'gwctl-content-'));
t.teardown(() => fs.rm(home, { recursive: true, force: true }));
const up = await startLegacyMcpServer(t, { tools: [...SAMPLE_TOOLS] });
const server = (await gw.api('POST', '/api/v1/mcp/servers', { body: { name: 'files', server_url: up.url } })).body.id as string;

const ctl = (args: string[], token = gw.adminToken): Promise<CliRun> =>
  runCli(['policies', 'content', ...args], home, {
    GATEWAYCTL_CONFIG: path.join(home, 'none.json'),
    GATEWAY_URL: gw.url,
    GATEWAY_TOKEN: token,
  });
const rows = () =>
  gw.db`select id, server_id, tool_name, direction, detector, action, config from mcp_content_policies order by created_at`;

t.test('list: the defaults in force before any policy', async (t) => {
  const list = await ctl(['list']);
  t.equal(list.code, 0, list.stderr);
  t.match(list.stdout, /arguments\s+secrets\s+BLOCK\s+default/);
  t.match(list.stdout, /results\s+injection\s+BLOCK\s+default/);
  t.match(list.stdout, /results\s+pii\s+OFF\s+default/);
  t.match(list.stdout, /No server or tool overrides\./);
  const json = await ctl(['list', '--json']);
  t.same(json.json, (await gw.api('GET', '/api/v1/mcp/content-policies')).body, '--json is the API answer');
});

t.test('set creates, set again changes the same policy, unset removes it', async (t) => {
  const created = await ctl(['set', '--direction', 'results', '--detector', 'pii', '--action', 'REDACT']);
  t.equal(created.code, 0, created.stderr);
  t.match(created.stdout, /^Set content policy \S+ \(results pii REDACT for project\)\.$/m);
  const onTool = await ctl([
    'set',
    '--direction',
    'arguments',
    '--detector',
    'secrets',
    '--action',
    'OFF',
    '--server',
    server,
    '--tool',
    'deploy',
    '--json',
  ]);
  t.equal(onTool.code, 0, onTool.stderr);
  t.match(onTool.json, { server_id: server, tool_name: 'deploy', direction: 'arguments', detector: 'secrets', action: 'OFF' });
  const changed = await ctl([
    'set',
    '--direction',
    'results',
    '--detector',
    'pii',
    '--action',
    'FLAG',
    '--config',
    '{"entities":["EMAIL"]}',
  ]);
  t.equal(changed.code, 0, changed.stderr);
  t.match(changed.stdout, /^Changed content policy/m);
  t.match(await rows(), [
    { direction: 'results', detector: 'pii', action: 'FLAG', config: { entities: ['EMAIL'] }, server_id: null },
    { server_id: server, tool_name: 'deploy', action: 'OFF' },
  ]);
  t.equal((await rows()).length, 2, 'changed in place, not added');
  const list = await ctl(['list']);
  t.match(list.stdout, /results\s+pii\s+FLAG\s+policy /);
  t.match(list.stdout, new RegExp(`tool deploy of ${server}\\s+arguments\\s+secrets\\s+OFF`));

  const removed = await ctl(['unset', '--direction', 'results', '--detector', 'pii']);
  t.equal(removed.code, 0, removed.stderr);
  t.match(removed.stdout, /^Removed content policy \S+ \(results pii FLAG for project\)\.$/m);
  t.match((await ctl(['list'])).stdout, /results\s+pii\s+OFF\s+default/, 'the default applies again');
});

t.test('refusals write nothing', async (t) => {
  const before = await rows();
  const viewer = (await gw.api('POST', '/api/v1/keys', { body: { name: 'v', role: 'viewer' } })).body.key as string;
  const asViewer = await ctl(['set', '--direction', 'results', '--detector', 'pii', '--action', 'FLAG'], viewer);
  t.equal(asViewer.code, 1);
  t.match(asViewer.stderr, /forbidden/);
  const badConfig = await ctl([
    'set',
    '--direction',
    'results',
    '--detector',
    'injection',
    '--action',
    'BLOCK',
    '--config',
    '{"block_threshold":3}',
  ]);
  t.equal(badConfig.code, 1);
  t.match(badConfig.stderr, /validation_error/);
  const notJson = await ctl(['set', '--direction', 'results', '--detector', 'pii', '--action', 'FLAG', '--config', '[1]']);
  t.equal(notJson.code, 2);
  const redactInjection = await ctl(['set', '--direction', 'results', '--detector', 'injection', '--action', 'REDACT']);
  t.equal(redactInjection.code, 1);
  t.match(redactInjection.stderr, /injection cannot be redacted/);
  const toolAlone = await ctl(['set', '--direction', 'results', '--detector', 'pii', '--action', 'FLAG', '--tool', 'x']);
  t.equal(toolAlone.code, 2, 'a tool needs its server');
  const nothing = await ctl(['unset', '--direction', 'results', '--detector', 'secrets']);
  t.equal(nothing.code, 2);
  t.match(nothing.stderr, /no content policy for this scope/);
  t.same(await rows(), before);
});
