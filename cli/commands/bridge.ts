// gatewayctl bridge: a stdio MCP server for hosts that speak only stdio (Claude Desktop): every
// JSON-RPC message is relayed to the server's proxy on the gateway over Streamable HTTP and back
// (cli/mcp-bridge.ts). The key comes from GATEWAY_TOKEN_FILE, GATEWAY_TOKEN or the saved login,
// never from the arguments; stdout carries JSON-RPC only, every other line goes to stderr.
import fs from 'node:fs/promises';
import { Args, Flags } from '@oclif/core';
import { GatewayCommand } from '../base-command.js';
import { loadConnection, type Connection } from '../config.js';
import { UsageError } from '../errors.js';
import { startBridge } from '../mcp-bridge.js';
import { tokenSourceOf } from '../oidc-tokens.js';
import { checkAgentRef, mcpAgentId, resolveServer } from '../name-or-id.js';

/** GATEWAY_TOKEN_FILE first (a file written by `connect --client claude-desktop --write`). */
async function bridgeConnection(env: NodeJS.ProcessEnv): Promise<Connection> {
  const file = env.GATEWAY_TOKEN_FILE;
  if (!file) return loadConnection(env);
  let token: string;
  try {
    token = (await fs.readFile(file, 'utf8')).trim();
  } catch (err) {
    throw new UsageError(`GATEWAY_TOKEN_FILE: cannot read ${file} (${(err as NodeJS.ErrnoException).code ?? 'unknown error'})`);
  }
  if (!token) throw new UsageError(`GATEWAY_TOKEN_FILE: ${file} is empty`);
  const mode = (await fs.stat(file)).mode & 0o077;
  if (mode !== 0) process.stderr.write(`bridge: warning: ${file} is readable by others (chmod 600 ${file})\n`);
  return loadConnection({ ...env, GATEWAY_TOKEN: token });
}

export default class Bridge extends GatewayCommand {
  static override enableJsonFlag = false;
  static override summary = 'Serve an MCP server of the gateway over stdio, for hosts that speak only stdio (Claude Desktop).';
  static override description =
    "A stdio MCP server that relays every JSON-RPC message to the server's proxy URL over Streamable HTTP and back: "
    + "sessions, event streams, the server's requests and notifications, DELETE when stdin closes. The key is read from "
    + 'GATEWAY_TOKEN_FILE or GATEWAY_TOKEN (or the saved login), the gateway from GATEWAY_URL (or the saved login); '
    + 'never from the arguments. Nothing but JSON-RPC is written to stdout; diagnostics go to stderr.';

  static override examples = [
    'GATEWAY_URL=http://127.0.0.1:8080 GATEWAY_TOKEN_FILE=~/.config/gatewayctl/tokens/KEY_ID.token <%= config.bin %> bridge weather',
  ];

  static override args = {
    server: Args.string({ description: 'ID or name of the MCP server (see servers list).', required: true }),
  };

  static override flags = {
    'agent-id': Flags.string({ summary: 'Call as this agent, by id or name (X-Agent-Id); default GATEWAY_AGENT_ID.' }),
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(Bridge);
    const agentRef = flags['agent-id'] ?? (process.env.GATEWAY_AGENT_ID || null);
    if (agentRef !== null) checkAgentRef(agentRef, '--agent-id');
    const connection = await bridgeConnection(process.env);
    const api = this.clientFor(connection);
    // Before a byte reaches stdout: a wrong key, server or agent is a clear line on stderr, not a silent host.
    const server = await resolveServer(api, args.server, this.config.bin);
    const agentId = agentRef === null ? null : await mcpAgentId(api, agentRef, '--agent-id');
    const url = new URL(`${connection.url}/api/v1/mcp/proxy/${encodeURIComponent(server.id)}`);
    const log = (line: string) => process.stderr.write(`${line}\n`);
    const token = await tokenSourceOf(connection).current();
    const bridge = await startBridge({ url, token, agentId, userAgent: this.config.userAgent, log });
    log(`bridge: relaying stdio to ${url.href} (server "${server.name}")`);
    for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) process.once(signal, () => void bridge.close());
    await bridge.closed;
    // Pooled keep-alive sockets would hold the process a few seconds more; the host waits for the exit.
    process.exit(0);
  }
}
