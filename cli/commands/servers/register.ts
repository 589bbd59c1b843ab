// gatewayctl servers register: a new MCP server, PENDING_APPROVAL and never scanned; nothing is
// sent to the server (Editor). Its credential is set afterwards with servers update.
import { Flags } from '@oclif/core';
import { serverRegisterBody } from '../../../shared/mcp-schemas.js';
import { checkBody, fieldsFromFlags } from '../../agent-flags.js';
import { GatewayCommand } from '../../base-command.js';
import type { McpServer } from '../../server-api.js';

const FIELDS = {
  name: 'name',
  url: 'server_url',
  'connector-type': 'connector_type',
  description: 'description',
  proxied: 'is_proxied',
} as const;
const RENAMED = { server_url: '--url', is_proxied: '--proxied' };

export default class ServersRegister extends GatewayCommand {
  static override summary = 'Register an MCP server; it stays PENDING_APPROVAL and is not contacted until scanned.';
  static override aliases = ['servers:create'];
  static override examples = [
    '<%= config.bin %> servers register --name github --url https://mcp.example.com/mcp --connector-type github',
    '<%= config.bin %> servers register --name internal --url https://tools.example.net/mcp --proxied --description "internal tools"',
  ];

  static override flags = {
    name: Flags.string({ summary: 'Name of the server, unique in the project (case and outer spaces ignored).', required: true }),
    url: Flags.string({ summary: 'MCP endpoint, http(s), without credentials in it.', required: true }),
    'connector-type': Flags.string({ summary: 'Kind of connector (default custom).' }),
    description: Flags.string({ summary: 'What the server is.' }),
    proxied: Flags.boolean({
      summary:
        "Record is_proxied (the spec's label for a server agents reach through the gateway). A label only: the proxy serves every ACTIVE server whatever it says.",
    }),
  };

  async run(): Promise<McpServer> {
    const { flags } = await this.parse(ServersRegister);
    const body = checkBody(serverRegisterBody, fieldsFromFlags(flags, FIELDS), RENAMED);
    const server = await (await this.api()).request<McpServer>('POST', '/api/v1/mcp/servers', body);
    this.log(`Registered MCP server ${server.id} "${server.name}" (${server.status}, never scanned): ${server.server_url}.`);
    for (const w of server.warnings ?? []) this.notice(`Warning: ${w.message}`);
    return server;
  }
}
