// gatewayctl servers update: name, description and sign-in (PATCH /api/v1/mcp/servers/{id}, Editor).
// Secrets come from a file or stdin, never from the command line, and are never printed; the
// daemon seals them and never returns them.
import { Flags } from '@oclif/core';
import { serverPatchBody } from '../../../shared/mcp-schemas.js';
import { checkBody, fieldsFromFlags } from '../../agent-flags.js';
import { GatewayCommand } from '../../base-command.js';
import { UsageError } from '../../errors.js';
import { serverIdArg, serverRoute, type McpServer } from '../../server-api.js';
import { AUTH_FLAGS, authConfigFlag, authFields, planAuth } from '../../server-auth.js';
import { resolveServer } from '../../name-or-id.js';

const FIELDS = { name: 'name', description: 'description' } as const;

export default class ServersUpdate extends GatewayCommand {
  static override summary = "Change an MCP server's name, description or sign-in; only the fields given change.";
  static override description =
    'Secrets are never taken on the command line: --bearer-token-file, --header-value-file and --exchange-client-secret-file read a file '
    + '("-" reads stdin), and --bearer-token accepts only "-". A header needs its name and value together. Nothing secret is printed. '
    + "With --exchange-*, the gateway signs in as each caller: it exchanges the caller's access token (RFC 8693) for one the upstream accepts (docs/identity.md#upstream-identity).";

  static override examples = [
    '<%= config.bin %> servers update SERVER_ID --bearer-token-file ./upstream.token',
    'vault read -field=token secret/mcp | <%= config.bin %> servers update SERVER_ID --bearer-token -',
    '<%= config.bin %> servers update SERVER_ID --header-name X-Api-Key --header-value-file ./api-key',
    '<%= config.bin %> servers update SERVER_ID --clear-auth',
    '<%= config.bin %> servers update SERVER_ID --exchange-client-id gateway --exchange-client-secret-file ./gateway.secret --exchange-resource https://mcp.example.com/mcp --exchange-scope "mcp:tools"',
  ];

  static override args = serverIdArg;

  static override flags = {
    name: Flags.string({ summary: 'New name, unique in the project.' }),
    description: Flags.string({ summary: 'What the server is.' }),
    ...AUTH_FLAGS,
  };

  async run(): Promise<McpServer> {
    const { args, flags } = await this.parse(ServersUpdate);
    const plan = planAuth(flags);
    const patch = fieldsFromFlags(flags, FIELDS);
    if (Object.keys(patch).length === 0 && plan.kind === 'none') {
      const names = [...Object.keys(FIELDS), ...Object.keys(AUTH_FLAGS)].map((f) => `--${f}`);
      throw new UsageError(`nothing to change: give at least one of ${names.join(', ')}`);
    }
    const renamed = { auth_method: '--auth-method', auth_config: authConfigFlag(plan) };
    const body = checkBody(serverPatchBody, { ...patch, ...(await authFields(plan)) }, renamed);
    const api = await this.api();
    const { id } = await resolveServer(api, args.id, this.config.bin);
    const server = await api.request<McpServer>('PATCH', serverRoute(id), body);
    const credential = 'auth_config' in body ? (body.auth_config === null ? ', credential cleared' : ', credential stored') : '';
    this.log(
      `Updated MCP server ${server.id} "${server.name}": ${Object.keys(body).join(', ')} (sign-in ${server.auth_method}${credential}).`,
    );
    return server;
  }
}
