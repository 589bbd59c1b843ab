// gatewayctl keys revoke: the key stops working at once, on every daemon.
import { Args } from '@oclif/core';
import { GatewayCommand } from '../../base-command.js';
import { KEYS, resolveRef } from '../../name-or-id.js';

export default class KeysRevoke extends GatewayCommand {
  static override summary = 'Revoke a project API key or user token; the next request with it is refused.';
  static override aliases = ['keys:delete'];
  static override examples = ['<%= config.bin %> keys revoke KEY_ID', '<%= config.bin %> keys revoke "ci smoke"'];
  static override args = {
    id: Args.string({ description: 'ID or name of the key (see keys list).', required: true }),
  };

  async run(): Promise<{ id: string; revoked_at: string }> {
    const { args } = await this.parse(KeysRevoke);
    const api = await this.api();
    const { id } = await resolveRef(api, KEYS, args.id, this.config.bin, 'ID');
    const result = await api.request<{ id: string; revoked_at: string }>('DELETE', `/api/v1/keys/${encodeURIComponent(id)}`);
    this.log(`Revoked key ${result.id} at ${result.revoked_at}.`);
    return result;
  }
}
