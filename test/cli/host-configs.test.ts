// The per-host configuration shapes of `gatewayctl connect` (cli/host-configs.ts): each host's entry
// and file, the Claude Code command line, Claude Desktop's per-user file, and the merge that keeps
// every other entry and refuses to replace one of the same name without force.
import t from 'tap';
import {
  claudeCodeBridgeEntry,
  claudeCodeCommand,
  claudeCodeEntry,
  claudeDesktopEntry,
  cursorEntry,
  hostConfigFile,
  hostDocument,
  jsonEntry,
  mergeEntry,
  proxyHeaders,
  shellWord,
  vscodeEntry,
} from '../../cli/host-configs.js';

const URL_ = 'https://gw.example.com/api/v1/mcp/proxy/srv1';
const target = { url: URL_, headers: proxyHeaders('gw_key', null) };
const withAgent = { url: URL_, headers: proxyHeaders('gw_key', 'agent1') };

t.test('headers: the key as a bearer token, X-Agent-Id only with an agent', async (t) => {
  t.same(proxyHeaders('k', null), { Authorization: 'Bearer k' });
  t.same(proxyHeaders('k', 'a1'), { Authorization: 'Bearer k', 'X-Agent-Id': 'a1' });
});

t.test('VS Code: .vscode/mcp.json, top-level servers, type http with url and headers', async (t) => {
  t.same(hostDocument('vscode', 'weather', vscodeEntry(withAgent)), {
    servers: { weather: { type: 'http', url: URL_, headers: { Authorization: 'Bearer gw_key', 'X-Agent-Id': 'agent1' } } },
  });
  t.equal(hostConfigFile('vscode', { platform: 'linux', cwd: '/p', home: '/h' }), '/p/.vscode/mcp.json');
});

t.test('Cursor: .cursor/mcp.json, top-level mcpServers, url and headers (no type)', async (t) => {
  t.same(hostDocument('cursor', 'weather', cursorEntry(target)), {
    mcpServers: { weather: { url: URL_, headers: { Authorization: 'Bearer gw_key' } } },
  });
  t.equal(hostConfigFile('cursor', { platform: 'linux', cwd: '/p', home: '/h' }), '/p/.cursor/mcp.json');
});

t.test('Claude Code: the claude mcp add-json command adds the bridge entry (no key in argv), and the .mcp.json shape', async (t) => {
  const bridge = {
    command: '/usr/bin/node',
    cliScript: '/src/gw/dist/cli/bin/gatewayctl.js',
    server: 'srv1',
    gatewayUrl: 'https://gw.example.com',
    tokenFile: "/h/it's/tokens/k1.token",
    agentId: 'agent1',
  };
  const command = claudeCodeCommand('my server', bridge);
  t.equal(
    command,
    `claude mcp add-json 'my server' '{"type":"stdio","command":"/usr/bin/node","args":["/src/gw/dist/cli/bin/gatewayctl.js","bridge","srv1"],`
      + `"env":{"GATEWAY_URL":"https://gw.example.com","GATEWAY_TOKEN_FILE":"/h/it'\\''s/tokens/k1.token","GATEWAY_AGENT_ID":"agent1"}}'`,
  );
  t.same(claudeCodeBridgeEntry(bridge), { type: 'stdio', ...claudeDesktopEntry(bridge) }, "Claude Desktop's entry, typed");
  t.same(hostDocument('claude-code', 'weather', claudeCodeEntry(target)), {
    mcpServers: { weather: { type: 'http', url: URL_, headers: { Authorization: 'Bearer gw_key' } } },
  });
  t.equal(hostConfigFile('claude-code', { platform: 'linux', cwd: '/p', home: '/h' }), '/p/.mcp.json');
  t.equal(shellWord("it's"), `'it'\\''s'`, 'a quote inside a word is closed, escaped and reopened');
});

t.test('Claude Desktop: stdio node <gatewayctl script> bridge SERVER, the key in a file named in env, never in args', async (t) => {
  const entry = claudeDesktopEntry({
    command: '/usr/bin/node',
    cliScript: '/src/gw/dist/cli/bin/gatewayctl.js',
    server: 'srv1',
    gatewayUrl: 'https://gw.example.com',
    tokenFile: '/h/.config/gatewayctl/tokens/k1.token',
    agentId: null,
  });
  t.same(hostDocument('claude-desktop', 'weather', entry), {
    mcpServers: {
      weather: {
        command: '/usr/bin/node',
        args: ['/src/gw/dist/cli/bin/gatewayctl.js', 'bridge', 'srv1'],
        env: { GATEWAY_URL: 'https://gw.example.com', GATEWAY_TOKEN_FILE: '/h/.config/gatewayctl/tokens/k1.token' },
      },
    },
  });
  const agent = claudeDesktopEntry({ command: 'n', cliScript: 'c.js', server: 'srv1', gatewayUrl: 'u', tokenFile: 'f', agentId: 'a1' });
  t.same((agent.env as Record<string, string>).GATEWAY_AGENT_ID, 'a1');
  t.same(agent.args, ['c.js', 'bridge', 'srv1']);
  t.equal(
    hostConfigFile('claude-desktop', { platform: 'darwin', cwd: '/p', home: '/Users/ada' }),
    '/Users/ada/Library/Application Support/Claude/claude_desktop_config.json',
  );
  t.equal(
    hostConfigFile('claude-desktop', {
      platform: 'win32',
      cwd: 'C:\\p',
      home: 'C:\\Users\\ada',
      APPDATA: 'C:\\Users\\ada\\AppData\\Roaming',
    }),
    'C:\\Users\\ada\\AppData\\Roaming\\Claude\\claude_desktop_config.json',
  );
  t.equal(
    hostConfigFile('claude-desktop', { platform: 'linux', cwd: '/p', home: '/home/ada' }),
    '/home/ada/.config/Claude/claude_desktop_config.json',
  );
  t.equal(
    hostConfigFile('claude-desktop', { platform: 'linux', cwd: '/p', home: '/home/ada', XDG_CONFIG_HOME: '/x' }),
    '/x/Claude/claude_desktop_config.json',
  );
});

t.test('json: the neutral {url, headers}, no file', async (t) => {
  t.same(jsonEntry(withAgent), { url: URL_, headers: { Authorization: 'Bearer gw_key', 'X-Agent-Id': 'agent1' } });
  t.equal(hostConfigFile('json', { platform: 'linux', cwd: '/p', home: '/h' }), null);
});

t.test('merge: other keys and entries kept; same name refused unless forced; bad shapes refused', async (t) => {
  const entry = { url: 'u' };
  t.same(mergeEntry(undefined, 'servers', 'a', entry, false), { ok: true, document: { servers: { a: entry } }, replaced: false });
  const existing = { inputs: [{ id: 'x' }], servers: { other: { command: 'x' } } };
  const merged = mergeEntry(existing, 'servers', 'a', entry, false);
  t.same(merged, { ok: true, document: { inputs: [{ id: 'x' }], servers: { other: { command: 'x' }, a: entry } }, replaced: false });
  t.same(existing, { inputs: [{ id: 'x' }], servers: { other: { command: 'x' } } }, 'the input is not changed');
  t.same(mergeEntry(existing, 'servers', 'other', entry, false), { ok: false, reason: 'exists' });
  t.same(mergeEntry(existing, 'servers', 'other', entry, true), {
    ok: true,
    document: { inputs: [{ id: 'x' }], servers: { other: entry } },
    replaced: true,
  });
  t.same(mergeEntry([], 'servers', 'a', entry, false), { ok: false, reason: 'not_an_object' });
  t.same(mergeEntry({ mcpServers: [] }, 'mcpServers', 'a', entry, false), { ok: false, reason: 'top_not_an_object' });
});
