// gatewayctl connect end to end: the compiled CLI against a real gatewayd with an ACTIVE server
// behind its proxy. Each host's configuration is printed with a new Viewer key that works (an SDK
// client lists the tools through the proxy with exactly the printed headers); --agent adds
// X-Agent-Id; --write merges into the host's file and refuses to clobber; an unknown server or agent
// is a clear error and creates no key; without --write nothing is written anywhere.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import t, { type Test } from 'tap';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CLI_BIN, runCli, type CliRun } from '../../helpers/cli.js';
import { activeAgent, activeServer, callTraces, startCountingServer, startProxyGateway } from '../../helpers/mcp-proxy.js';

const px = await startProxyGateway(t);
const { gw } = px;
const up = await startCountingServer(t);
const server = await activeServer(
  px,
  up.url,
  { get_weather: 'ALLOW', delete_file: 'DENY', ping: 'ALLOW', progress: 'ALLOW' },
  { name: 'weather' },
);
const agent = await activeAgent(gw);
const agentName = (await gw.api('GET', `/api/v1/agents/${agent}`)).body.name as string;
const PROXY_URL = `${gw.url}/api/v1/mcp/proxy/${server.id}`;

const home = await fs.mkdtemp(path.join(os.tmpdir(), 'gwctl-connect-'));
t.teardown(() => fs.rm(home, { recursive: true, force: true }));
const env = {
  GATEWAYCTL_CONFIG: path.join(home, 'gatewayctl', 'config.json'),
  XDG_CONFIG_HOME: path.join(home, 'xdg'),
  GATEWAY_URL: gw.url,
  GATEWAY_TOKEN: gw.adminToken,
};
const ctl = (args: string[]): Promise<CliRun> => runCli(args, home, env);

const keyCount = async (): Promise<number> => (await gw.db`select count(*)::int as n from credentials`)[0]!.n as number;
const keyRow = async (id: string) => (await gw.db`select name, role, kind, revoked_at from credentials where id = ${id}`)[0];
/** Every file under home, with its content: "nothing written" is this, unchanged. */
async function tree(dir = home): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const entry of await fs.readdir(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) {
      const file = path.join(entry.parentPath, entry.name);
      out[path.relative(home, file)] = await fs.readFile(file, 'utf8');
    }
  }
  return out;
}

/** An SDK client through the proxy with exactly these headers: the tools it is given. */
async function toolsWith(url: string, headers: Record<string, string>): Promise<string[]> {
  const client = new Client({ name: 'connect-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  try {
    return (await client.listTools()).tools.map((x) => x.name).sort();
  } finally {
    await client.close();
  }
}
const TOOLS = ['delete_file', 'get_weather', 'ping', 'progress'];
// biome-ignore lint/suspicious/noExplicitAny: a printed host configuration, read by path
type Doc = any;

t.test('each host: its configuration with a new Viewer key that works through the proxy; nothing written', async (t) => {
  const before = await tree();
  const cases = [
    { client: 'vscode', entry: (c: Doc) => c.servers.weather, type: 'http' },
    { client: 'cursor', entry: (c: Doc) => c.mcpServers.weather, type: undefined },
    { client: 'json', entry: (c: Doc) => c, type: undefined },
  ];
  for (const { client, entry, type } of cases) {
    const run = await ctl(['connect', 'weather', '--client', client, '--json']);
    t.equal(run.code, 0, `${client}: ${run.stderr}`);
    const e = entry(run.json.config);
    t.same(Object.keys(e).sort(), type ? ['headers', 'type', 'url'] : ['headers', 'url'], `${client}: the entry's fields`);
    t.equal(e.type, type);
    t.equal(e.url, PROXY_URL, `${client}: the proxy URL`);
    t.same(Object.keys(e.headers), ['Authorization'], `${client}: no X-Agent-Id without --agent`);
    const key = /^Bearer (\S+)$/.exec(e.headers.Authorization)?.[1] ?? '';
    t.match(await keyRow(run.json.key.id), { name: `${client} weather`, role: 'viewer', kind: 'project_key', revoked_at: null });
    t.same(await toolsWith(e.url, e.headers), TOOLS, `${client}: tools/list through the proxy with the printed headers`);
    t.match(run.json, { client, server: { id: server.id, name: 'weather', proxy_url: PROXY_URL }, written: false, agent_id: null });
    t.ok(key.length > 20);
  }

  const human = await ctl(['connect', server.id, '--client', 'vscode', '--key-name', 'my editor']);
  t.equal(human.code, 0, human.stderr);
  const doc = JSON.parse(human.stdout);
  t.same(Object.keys(doc), ['servers'], 'stdout is the whole .vscode/mcp.json, ready to paste');
  t.equal(doc.servers.weather.url, PROXY_URL, 'SERVER by id works too');
  t.match(human.stderr, /^Created project key \S+ "my editor" \(role viewer\) for VS Code\.$/m);
  t.match(human.stderr, /\.vscode\/mcp\.json/);
  t.equal((await gw.db`select count(*)::int as n from credentials where name = 'my editor' and role = 'viewer'`)[0]!.n, 1, '--key-name');

  t.same(await tree(), before, 'without --write nothing is written');
});

/** Starts a stdio entry as its host would (its own directory, a PATH without gatewayctl): the tools it lists. */
async function toolsOfStdioEntry(t: Test, entry: { command: string; args: string[]; env: Record<string, string> }): Promise<string[]> {
  const transport = new StdioClientTransport({
    command: entry.command,
    args: entry.args,
    env: { ...entry.env, PATH: '/usr/bin:/bin', HOME: home },
    cwd: os.tmpdir(),
    stderr: 'pipe',
  });
  const client = new Client({ name: 'stdio-host', version: '1.0.0' });
  await client.connect(transport);
  t.teardown(() => client.close());
  return (await client.listTools()).tools.map((x) => x.name).sort();
}

t.test('claude-code: the printed command names a 0600 key file, never the key', async (t) => {
  const before = await tree();
  const run = await ctl(['connect', 'WEATHER', '--client', 'claude-code', '--agent', agent, '--json']);
  t.equal(run.code, 0, run.stderr);
  t.equal(run.json.token_file, path.join(home, 'gatewayctl', 'tokens', `${run.json.key.id}.token`));
  t.equal((await fs.stat(run.json.token_file)).mode & 0o777, 0o600, 'the key file is 0600');
  const key = (await fs.readFile(run.json.token_file, 'utf8')).trim();
  t.ok(key.length > 20);
  t.notOk(run.stdout.includes(key) || run.stderr.includes(key), 'the key is printed nowhere: not in the command, not in the entry');
  t.equal(run.json.token, undefined);
  const entry = run.json.config.mcpServers.weather;
  t.same(entry, {
    type: 'stdio',
    command: process.execPath,
    args: [CLI_BIN, 'bridge', server.id],
    env: { GATEWAY_URL: gw.url, GATEWAY_TOKEN_FILE: run.json.token_file, GATEWAY_AGENT_ID: agent },
  });
  const json = /^claude mcp add-json weather '(.*)'$/.exec(run.json.command)?.[1];
  t.same(JSON.parse(json ?? 'null'), entry, 'the command adds exactly that entry');
  t.same(
    await toolsOfStdioEntry(t, entry),
    TOOLS,
    'the entry, started as Claude Code starts it, reaches the tools with the key from the file',
  );
  t.same(
    Object.keys(await tree()).filter((f) => !(f in before)),
    [path.relative(home, run.json.token_file)],
    'the key file is all that is written',
  );

  const human = await ctl(['connect', 'weather', '--client', 'claude-code']);
  t.equal(human.code, 0, human.stderr);
  const [line, blank, ...rest] = human.stdout.split('\n');
  t.match(line, /^claude mcp add-json weather '\{"type":"stdio",.*"GATEWAY_TOKEN_FILE":"[^"]+\.token"\}\}'$/);
  t.equal(blank, '');
  t.same(Object.keys(JSON.parse(rest.join('\n'))), ['mcpServers'], 'then the entry in the .mcp.json shape');
  t.match(human.stderr, /The key is in \S+\.token \(mode 0600\) and is shown nowhere/);
  t.notMatch(human.stdout, /Bearer/);
});

t.test('claude-desktop: the bridge entry, the key only in the token file (never in args)', async (t) => {
  const before = await tree();
  const run = await ctl(['connect', 'weather', '--client', 'claude-desktop', '--json']);
  t.equal(run.code, 0, run.stderr);
  const entry = run.json.config.mcpServers.weather;
  t.equal(entry.command, process.execPath, 'node by its absolute path: `gatewayctl` is on no PATH in a checkout');
  t.same(entry.args, [CLI_BIN, 'bridge', server.id], "gatewayctl's own script by its absolute path");
  t.ok(path.isAbsolute(entry.args[0]));
  t.same(entry.env, { GATEWAY_URL: gw.url, GATEWAY_TOKEN_FILE: run.json.token_file });
  t.equal(run.json.token_file, path.join(home, 'gatewayctl', 'tokens', `${run.json.key.id}.token`));
  t.equal(run.json.file, path.join(home, 'xdg', 'Claude', 'claude_desktop_config.json'));
  t.notMatch(JSON.stringify(entry), new RegExp(run.json.token), 'the key is not in the entry');
  t.same(await toolsWith(PROXY_URL, { Authorization: `Bearer ${run.json.token}` }), TOOLS, 'the key to save works');
  t.same(await tree(), before, 'nothing written without --write');

  const human = await ctl(['connect', 'weather', '--client', 'claude-desktop']);
  t.equal(human.code, 0, human.stderr);
  t.match(human.stderr, /save the key below in \S+\.token with mode 0600/);
});

t.test('--agent by name or id adds X-Agent-Id; calls through the proxy are that agent', async (t) => {
  const byName = await ctl(['connect', 'weather', '--client', 'cursor', '--agent', agentName, '--json']);
  t.equal(byName.code, 0, byName.stderr);
  const headers = byName.json.config.mcpServers.weather.headers;
  t.same(Object.keys(headers), ['Authorization', 'X-Agent-Id']);
  t.equal(headers['X-Agent-Id'], agent, 'the agent id, named by its name');
  t.equal(byName.json.agent_id, agent);
  const call = await px.callTool(
    server.id,
    'get_weather',
    { city: 'Oslo' },
    {
      token: headers.Authorization.slice('Bearer '.length),
      headers: { 'x-agent-id': headers['X-Agent-Id'] },
    },
  );
  t.equal(call.status, 200, call.text);
  t.ok(call.body.result, call.text);
  t.equal((await callTraces(gw)).at(-1)?.agent_id, agent, 'the trace names the agent');

  const byId = await ctl(['connect', 'weather', '--client', 'claude-desktop', '--agent', agent, '--json']);
  t.equal(byId.code, 0, byId.stderr);
  t.equal(byId.json.config.mcpServers.weather.env.GATEWAY_AGENT_ID, agent, 'the bridge gets the agent in its env');
});

t.test('a server not ACTIVE: the configuration all the same, with a note that its calls are refused until approved', async (t) => {
  const pending = await gw.api('POST', '/api/v1/mcp/servers', { body: { name: 'pending', server_url: up.url } });
  const run = await ctl(['connect', 'pending', '--client', 'json', '--json']);
  t.equal(run.code, 0, run.stderr);
  t.equal(run.json.config.url, `${gw.url}/api/v1/mcp/proxy/${pending.body.id}`);
  t.match(
    run.stderr,
    /^Note: the server is PENDING_APPROVAL; its tool calls are refused until it is ACTIVE \(gatewayctl servers approve\)\.$/m,
  );
});

t.test('unknown server or agent: a clear error, exit 1, no key created, nothing written', async (t) => {
  const keys = await keyCount();
  const before = await tree();
  const noServer = await ctl(['connect', 'nope', '--client', 'vscode']);
  t.equal(noServer.code, 1);
  t.match(
    noServer.stderr,
    /^Error: not_found: No MCP server with id or name "nope" \(see gatewayctl servers list\)\. \(request_id [0-9a-f-]{36}\)$/m,
  );
  t.equal(noServer.stdout, '');
  const noAgent = await ctl(['connect', 'weather', '--client', 'vscode', '--agent', 'ghost', '--write', '--json']);
  t.equal(noAgent.code, 1);
  t.match(noAgent.json, { error: { code: 'not_found', message: 'No agent with id or name "ghost" (see gatewayctl agents list).' } });
  const badClient = await ctl(['connect', 'weather', '--client', 'emacs']);
  t.equal(badClient.code, 2, 'an unknown --client is a usage error');
  const forceAlone = await ctl(['connect', 'weather', '--force']);
  t.equal(forceAlone.code, 2, '--force needs --write');
  const jsonWrite = await ctl(['connect', 'weather', '--client', 'json', '--write']);
  t.equal(jsonWrite.code, 2, 'json has no file to write');
  t.equal(await keyCount(), keys, 'no key created');
  t.same(await tree(), before, 'nothing written');
});

t.test('--write merges into the host file, keeps other entries, refuses to clobber without --force', async (t) => {
  const file = path.join(home, '.vscode', 'mcp.json');
  await fs.mkdir(path.dirname(file));
  const mine = { inputs: [{ type: 'promptString', id: 'tok' }], servers: { other: { command: 'node', args: ['x.js'] } } };
  await fs.writeFile(file, JSON.stringify(mine));
  const run = await ctl(['connect', 'weather', '--client', 'vscode', '--write', '--json']);
  t.equal(run.code, 0, run.stderr);
  t.match(run.json, { written: true, replaced: false, file });
  const written = JSON.parse(await fs.readFile(file, 'utf8'));
  t.same(written.inputs, mine.inputs, 'other top-level keys kept');
  t.same(written.servers.other, mine.servers.other, 'other entries kept');
  t.same(written.servers.weather, run.json.config.servers.weather, 'the entry added');
  t.same(await toolsWith(written.servers.weather.url, written.servers.weather.headers), TOOLS, 'the written key works');

  const keys = await keyCount();
  const again = await ctl(['connect', 'weather', '--client', 'vscode', '--write']);
  t.equal(again.code, 2);
  t.match(again.stderr, /already has an entry named "weather"; run again with --force to replace it/);
  t.equal(await keyCount(), keys, 'the refusal created no key');
  t.same(JSON.parse(await fs.readFile(file, 'utf8')), written, 'and left the file as it was');

  const forced = await ctl(['connect', 'weather', '--client', 'vscode', '--write', '--force', '--json']);
  t.equal(forced.code, 0, forced.stderr);
  t.match(forced.json, { written: true, replaced: true });
  const after = JSON.parse(await fs.readFile(file, 'utf8'));
  t.not(after.servers.weather.headers.Authorization, written.servers.weather.headers.Authorization, 'the new key');
  t.same(after.servers.other, mine.servers.other);

  await fs.writeFile(path.join(home, '.mcp.json'), '{ // a comment\n}');
  const comments = await ctl(['connect', 'weather', '--client', 'claude-code', '--write']);
  t.equal(comments.code, 2);
  t.match(comments.stderr, /is not plain JSON/);
  t.equal(await fs.readFile(path.join(home, '.mcp.json'), 'utf8'), '{ // a comment\n}', 'never overwritten');

  const cursor = await ctl(['connect', 'weather', '--client', 'cursor', '--write']);
  t.equal(cursor.code, 0, cursor.stderr);
  const cursorFile = path.join(home, '.cursor', 'mcp.json');
  t.equal((await fs.stat(cursorFile)).mode & 0o777, 0o600, 'a new file holding a key is 0600');
  t.match(cursor.stderr, /keep it out of version control/);
});

t.test('claude-desktop --write: the per-user file merged, the key in a 0600 token file', async (t) => {
  const file = path.join(home, 'xdg', 'Claude', 'claude_desktop_config.json');
  await fs.mkdir(path.dirname(file), { recursive: true });
  await fs.writeFile(file, JSON.stringify({ globalShortcut: 'x', mcpServers: { fs: { command: 'npx', args: ['fs'] } } }));
  const run = await ctl(['connect', 'weather', '--client', 'claude-desktop', '--write', '--json']);
  t.equal(run.code, 0, run.stderr);
  t.equal(run.json.token, undefined, 'the key is not printed');
  const doc = JSON.parse(await fs.readFile(file, 'utf8'));
  t.same(doc.globalShortcut, 'x');
  t.same(doc.mcpServers.fs, { command: 'npx', args: ['fs'] });
  t.same(doc.mcpServers.weather.args, [CLI_BIN, 'bridge', server.id]);
  const tokenFile = doc.mcpServers.weather.env.GATEWAY_TOKEN_FILE as string;
  t.equal((await fs.stat(tokenFile)).mode & 0o777, 0o600);
  const key = (await fs.readFile(tokenFile, 'utf8')).trim();
  t.same(await toolsWith(PROXY_URL, { Authorization: `Bearer ${key}` }), TOOLS, 'the key in the file works');
  t.notMatch(run.stdout + run.stderr, new RegExp(key), 'and is shown nowhere');

  // The host starts the entry as written, from its own directory, with a PATH that has no gatewayctl.
  const entry = doc.mcpServers.weather as { command: string; args: string[]; env: Record<string, string> };
  t.same(await toolsOfStdioEntry(t, entry), TOOLS, 'the entry starts the bridge and lists the tools (no spawn ENOENT)');
});

t.test('--write into an existing file others may read: tightened to 0600, and said so', async (t) => {
  const dir = await fs.mkdtemp(path.join(home, 'modes-'));
  const file = path.join(dir, '.vscode', 'mcp.json');
  await fs.mkdir(path.dirname(file));
  const inDir = (args: string[]) => runCli(args, dir, env);
  for (const [had, expected] of [
    [0o644, 0o600],
    [0o640, 0o600],
    [0o666, 0o600],
    [0o600, 0o600],
    [0o400, 0o400],
  ] as const) {
    await fs.writeFile(file, '{"servers":{}}');
    await fs.chmod(file, had);
    const run = await inDir(['connect', 'weather', '--client', 'vscode', '--write']);
    t.equal(run.code, 0, run.stderr);
    t.equal((await fs.stat(file)).mode & 0o777, expected, `0${had.toString(8)} -> 0${expected.toString(8)}`);
    const said = new RegExp(`mcp\\.json was mode 0${had.toString(8)}, open to other users; it now holds a key, so it is 0600\\.`);
    if (had & 0o077) t.match(run.stderr, said);
    else t.notMatch(run.stderr, /open to other users/, 'a private file keeps its mode, nothing said');
    t.ok(JSON.parse(await fs.readFile(file, 'utf8')).servers.weather, 'the entry is written');
  }
});
