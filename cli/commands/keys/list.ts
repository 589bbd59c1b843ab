// gatewayctl keys list: project API keys and user tokens, without secrets.
import type { CredentialKind, Role } from '../../../shared/credentials.js';
import { GatewayCommand } from '../../base-command.js';
import { table } from '../../format.js';

export interface KeyListing {
  id: string;
  name: string;
  kind: CredentialKind;
  role: Role | null;
  user_id: string | null;
  prefix: string;
  created_at: string;
  created_by: string | null;
  revoked_at: string | null;
}

export default class KeysList extends GatewayCommand {
  static override summary = 'List project API keys and user tokens (never their secrets).';
  static override examples = ['<%= config.bin %> keys list', '<%= config.bin %> keys list --json'];

  async run(): Promise<{ keys: KeyListing[] }> {
    await this.parse(KeysList);
    const result = await (await this.api()).request<{ keys: KeyListing[] }>('GET', '/api/v1/keys');
    if (result.keys.length === 0) this.log('No keys.');
    else {
      this.log(
        table(
          ['ID', 'NAME', 'KIND', 'ROLE', 'USER', 'PREFIX', 'CREATED', 'CREATED BY', 'REVOKED'],
          result.keys.map((k) => [k.id, k.name, k.kind, k.role, k.user_id, k.prefix, k.created_at, k.created_by, k.revoked_at]),
        ),
      );
    }
    return result;
  }
}
