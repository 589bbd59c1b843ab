// gatewayctl extensions revoke: the extension's key stops working at once, on every daemon.
import { Args } from '@oclif/core';
import { GatewayCommand } from '../../base-command.js';
import { EXTENSIONS, resolveRef } from '../../name-or-id.js';

export default class ExtensionsRevoke extends GatewayCommand {
  static override summary = "Revoke an extension's key; its next delivery is refused.";
  static override aliases = ['extensions:delete'];
  static override examples = ['<%= config.bin %> extensions revoke EXTENSION_ID'];
  static override args = {
    id: Args.string({ description: 'ID or name of the extension (see extensions list).', required: true }),
  };

  async run(): Promise<{ id: string; revoked_at: string }> {
    const { args } = await this.parse(ExtensionsRevoke);
    const api = await this.api();
    const { id } = await resolveRef(api, EXTENSIONS, args.id, this.config.bin, 'ID');
    const result = await api.request<{ id: string; revoked_at: string }>('DELETE', `/api/v1/extensions/${encodeURIComponent(id)}`);
    this.log(`Revoked extension ${result.id} at ${result.revoked_at}.`);
    return result;
  }
}
