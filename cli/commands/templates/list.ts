// gatewayctl templates list: the MCP server templates of GET /api/v1/mcp/templates. Every template
// is locked for now (its sign-in method cannot be attached), which the output says plainly.
import { GatewayCommand } from '../../base-command.js';
import { table } from '../../format.js';

export interface Template {
  id: string;
  name: string;
  description: string;
  category: string;
  connector_type: string;
  auth_method: string;
  default_policies: { tool: string; action: string }[];
  available: boolean;
  unavailable_reason: string | null;
}

export default class TemplatesList extends GatewayCommand {
  static override summary = 'List the MCP server templates, with their sign-in method and default tool rules.';
  static override examples = ['<%= config.bin %> templates list', '<%= config.bin %> templates list --json'];

  async run(): Promise<{ templates: Template[] }> {
    await this.parse(TemplatesList);
    const result = await (await this.api()).request<{ templates: Template[] }>('GET', '/api/v1/mcp/templates');
    if (result.templates.length === 0) {
      this.log('No templates.');
      return result;
    }
    this.log(
      table(
        ['ID', 'NAME', 'CATEGORY', 'AUTH', 'AVAILABLE', 'DEFAULT RULES'],
        result.templates.map((t) => [
          t.id,
          t.name,
          t.category,
          t.auth_method,
          t.available ? 'yes' : `no (${t.unavailable_reason ?? 'locked'})`,
          t.default_policies.map((p) => `${p.tool}=${p.action}`).join(', '),
        ]),
      ),
    );
    return result;
  }
}
