// gatewayctl servers register: a new MCP server, PENDING_APPROVAL and never scanned; nothing is
// sent to the server (Editor). Its credential is set afterwards with servers update. With --stdio,
// a program the gateway starts in a sandbox (Admin), given after `--` (cli/stdio-flags.ts).
import { Flags } from '@oclif/core';
import { serverRegisterBody } from '../../../shared/mcp-schemas.js';
import { checkBody, fieldsFromFlags } from '../../agent-flags.js';
import { GatewayCommand } from '../../base-command.js';
import { UsageError } from '../../errors.js';
import { STDIO_FLAGS, stdioFields } from '../../stdio-flags.js';
import type { McpServer } from '../../server-api.js';

const FIELDS = {
  name: 'name',
  url: 'server_url',
  'connector-type': 'connector_type',
  description: 'description',
  proxied: 'is_proxied',
} as const;
const RENAMED = {
  server_url: '--url',
  is_proxied: '--proxied',
  transport: '--stdio',
  command: 'the program after --',
  args: 'the arguments after --',
  secret_env: 'the secret variables',
  grants: '--grant-ro/--grant-rw',
  process_mode: '--per-session',
};

export default class ServersRegister extends GatewayCommand {
  static override summary = 'Register an MCP server; it stays PENDING_APPROVAL and is not contacted until scanned.';
  static override aliases = ['servers:create'];
  static override examples = [
    '<%= config.bin %> servers register --name github --url https://mcp.example.com/mcp --connector-type github',
    '<%= config.bin %> servers register --name internal --url https://tools.example.net/mcp --proxied --description "internal tools"',
    '<%= config.bin %> servers register --name docs --stdio --grant-ro /srv/docs -- npx -y @modelcontextprotocol/server-filesystem /srv/docs',
    '<%= config.bin %> servers register --name github --stdio --secret-env-file ./github.env -- /usr/local/bin/github-mcp-server stdio',
  ];

  // The program and its arguments follow `--`.
  static override strict = false;

  static override flags = {
    name: Flags.string({ summary: 'Name of the server, unique in the project (case and outer spaces ignored).', required: true }),
    url: Flags.string({ summary: 'MCP endpoint, http(s), without credentials in it (an HTTP server: required without --stdio).' }),
    'connector-type': Flags.string({ summary: 'Kind of connector (default custom).' }),
    description: Flags.string({ summary: 'What the server is.' }),
    proxied: Flags.boolean({
      summary:
        "Record is_proxied (the spec's label for a server agents reach through the gateway). A label only: the proxy serves every ACTIVE server whatever it says.",
    }),
    ...STDIO_FLAGS,
  };

  async run(): Promise<McpServer> {
    const { flags, argv } = await this.parse(ServersRegister);
    const dashes = this.argv.indexOf('--');
    const program = dashes === -1 ? [] : this.argv.slice(dashes + 1);
    // Without --, nothing may be left over; with it, only the program (a mistyped flag is not an argument).
    if (argv.length !== program.length)
      throw new UsageError(`unexpected argument ${String(argv[0])}; the program of --stdio goes after --`);
    if (flags.stdio === (flags.url !== undefined)) throw new UsageError('give --url (an HTTP server) or --stdio (a program), one of them');
    const fields = flags.stdio
      ? { ...fieldsFromFlags(flags, FIELDS), ...(await stdioFields(flags, program)) }
      : fieldsFromFlags(flags, FIELDS);
    if (!flags.stdio && program.length > 0) throw new UsageError('a program after -- needs --stdio');
    const body = checkBody(serverRegisterBody, fields, RENAMED);
    const server = await (await this.api()).request<McpServer>('POST', '/api/v1/mcp/servers', body);
    this.log(`Registered MCP server ${server.id} "${server.name}" (${server.status}, never scanned): ${server.server_url}.`);
    for (const w of server.warnings ?? []) this.notice(`Warning: ${w.message}`);
    return server;
  }
}
