// gatewayctl extensions revoke: the extension's key stops working at once, on every daemon.
import { Args } from '@oclif/core';
import { GatewayCommand } from '../../base-command.js';

export default class ExtensionsRevoke extends GatewayCommand {
  static override summary = "Revoke an extension's key; its next delivery is refused.";
  static override aliases = ['extensions:delete'];
  static override examples = ['<%= config.bin %> extensions revoke EXTENSION_ID'];
  static override args = {
    id: Args.string({ description: 'ID of the extension (see extensions list).', required: true }),
  };

  async run(): Promise<{ id: string; revoked_at: string }> {
    const { args } = await this.parse(ExtensionsRevoke);
    const result = await (await this.api()).request<{ id: string; revoked_at: string }>(
      'DELETE',
      `/api/v1/extensions/${encodeURIComponent(args.id)}`,
    );
    this.log(`Revoked extension ${result.id} at ${result.revoked_at}.`);
    return result;
  }
}
