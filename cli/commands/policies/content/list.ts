// gatewayctl policies content list: what the MCP proxy's content detectors do with arguments and
// results (any role): the project's action per direction and detector (its own policy or the
// built-in default), then the server and tool overrides, oldest first.
import { GatewayCommand } from '../../../base-command.js';
import { CONTENT_POLICIES_ROUTE, contentTables, type ContentPolicyList } from '../../../content-policies.js';

export default class PoliciesContentList extends GatewayCommand {
  static override summary = 'Show what the content detectors do on the MCP path: defaults, project policies, overrides.';
  static override examples = ['<%= config.bin %> policies content list', '<%= config.bin %> policies content list --json'];

  async run(): Promise<ContentPolicyList> {
    await this.parse(PoliciesContentList);
    const list = await (await this.api()).request<ContentPolicyList>('GET', CONTENT_POLICIES_ROUTE);
    this.log(contentTables(list));
    return list;
  }
}
