// gatewayctl keys list: project API keys and user tokens, without secrets.
import type { CredentialListing } from '../../../shared/credentials.js';
import { GatewayCommand } from '../../base-command.js';
import { table } from '../../format.js';

export default class KeysList extends GatewayCommand {
  static override summary = 'List project API keys and user tokens (never their secrets).';
  static override examples = ['<%= config.bin %> keys list', '<%= config.bin %> keys list --json'];

  async run(): Promise<{ keys: CredentialListing[] }> {
    await this.parse(KeysList);
    const result = await (await this.api()).request<{ keys: CredentialListing[] }>('GET', '/api/v1/keys');
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
