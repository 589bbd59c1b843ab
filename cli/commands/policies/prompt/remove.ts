// gatewayctl policies prompt remove: deletes a prompt policy (Admin); the change is a trace and an
// admin-log entry, like every policy change.
import { Args } from '@oclif/core';
import { GatewayCommand } from '../../../base-command.js';

export default class PoliciesPromptRemove extends GatewayCommand {
  static override summary = 'Remove a prompt policy (Admin).';
  static override aliases = ['policies:prompt:delete'];
  static override examples = ['<%= config.bin %> policies prompt remove POLICY_ID'];
  static override args = {
    id: Args.string({ description: 'ID of the policy (see policies prompt list).', required: true }),
  };

  async run(): Promise<{ id: string; deleted: boolean }> {
    const { args } = await this.parse(PoliciesPromptRemove);
    const result = await (await this.api()).request<{ id: string; deleted: boolean }>(
      'DELETE',
      `/api/v1/verify/policies/${encodeURIComponent(args.id)}`,
    );
    this.log(`Removed prompt policy ${result.id}.`);
    return result;
  }
}
