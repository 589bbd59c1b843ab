// gatewayctl policies prompt list: the project's prompt policies, in the order they were created.
import { GatewayCommand } from '../../../base-command.js';
import { policyTable, type PromptPolicy } from '../../../policy-flags.js';

export default class PoliciesPromptList extends GatewayCommand {
  static override summary = "List the project's prompt policies (what verify runs).";
  static override examples = ['<%= config.bin %> policies prompt list', '<%= config.bin %> policies prompt list --json'];

  async run(): Promise<{ policies: PromptPolicy[] }> {
    await this.parse(PoliciesPromptList);
    const result = await (await this.api()).request<{ policies: PromptPolicy[] }>('GET', '/api/v1/verify/policies');
    this.log(result.policies.length === 0 ? 'No prompt policies.' : policyTable(result.policies));
    return result;
  }
}
