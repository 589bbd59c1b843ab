// gatewayctl keys revoke: the key stops working at once, on every daemon.
import { Args } from '@oclif/core';
import { GatewayCommand } from '../../base-command.js';

export default class KeysRevoke extends GatewayCommand {
  static override summary = 'Revoke a project API key or user token; the next request with it is refused.';
  static override aliases = ['keys:delete'];
  static override examples = ['<%= config.bin %> keys revoke KEY_ID'];
  static override args = {
    id: Args.string({ description: 'ID of the key (see keys list).', required: true }),
  };

  async run(): Promise<{ id: string; revoked_at: string }> {
    const { args } = await this.parse(KeysRevoke);
    const result = await (await this.api()).request<{ id: string; revoked_at: string }>(
      'DELETE',
      `/api/v1/keys/${encodeURIComponent(args.id)}`,
    );
    this.log(`Revoked key ${result.id} at ${result.revoked_at}.`);
    return result;
  }
}
