// gatewayctl whoami: which gateway this CLI talks to and as whom (GET /api/v1/me and /project):
// the key or user token, or the person an identity provider's sign-in names (login --oidc).
import { GatewayCommand, type Me } from '../base-command.js';
import { configPath, currentContext } from '../config.js';
import { keyValues } from '../format.js';

export interface WhoAmI {
  url: string;
  /** Where the connection came from: the saved file, or GATEWAY_URL and GATEWAY_TOKEN. */
  source: string;
  /** The saved context in use; null when the environment gives the connection. */
  context: string | null;
  gateway_version: string;
  gatewayctl_version: string;
  project: { id: string; name: string };
  credential: { id: string; kind: string; name: string; role: string | null; user_id: string | null };
  /** Only when signed in with the identity provider: the person (or client) its token names. */
  subject?: { issuer: string; sub: string; name: string };
}

export default class WhoAmICommand extends GatewayCommand {
  static override summary = 'Show the gateway this CLI talks to, its version, the project, and the key or user behind the token.';
  static override examples = ['<%= config.bin %> whoami', '<%= config.bin %> whoami --json'];

  async run(): Promise<WhoAmI> {
    await this.parse(WhoAmICommand);
    const api = await this.api();
    const [me, project] = await Promise.all([
      api.request<Me>('GET', '/api/v1/me'),
      api.request<{ id: string; name: string }>('GET', '/api/v1/project'),
    ]);
    const fromEnv = Boolean(process.env.GATEWAY_URL && process.env.GATEWAY_TOKEN);
    const context = await currentContext();
    const out: WhoAmI = {
      url: api.url,
      source: fromEnv ? 'GATEWAY_URL and GATEWAY_TOKEN' : configPath(),
      context,
      gateway_version: me.gateway_version,
      gatewayctl_version: this.config.version,
      project: { id: project.id, name: project.name },
      credential: { id: me.credential_id, kind: me.kind, name: me.name, role: me.role, user_id: me.user_id },
      ...(me.subject ? { subject: me.subject } : {}),
    };
    this.log(
      keyValues({
        gateway: `${out.url} (gatewayd ${out.gateway_version}, gatewayctl ${out.gatewayctl_version})`,
        project: `${project.name} (${project.id})`,
        as: `${describe(me)}, role ${me.role ?? 'none'}, credential ${me.credential_id}`,
        from: context === null ? out.source : `${out.source} (context ${context})`,
      }),
    );
    return out;
  }
}

function describe(me: Me): string {
  if (me.subject) return `${me.subject.name} (sub ${me.subject.sub}, signed in at ${me.subject.issuer})`;
  return me.kind === 'user_token' ? `user ${me.user_id ?? '?'} (token "${me.name}")` : `${me.kind.replace('_', ' ')} "${me.name}"`;
}
