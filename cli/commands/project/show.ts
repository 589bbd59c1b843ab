// gatewayctl project show: the project's settings and plan.
import { GatewayCommand } from '../../base-command.js';
import { keyValues } from '../../format.js';
import type { ProjectSettings } from '../../../shared/schemas.js';

export default class ProjectShow extends GatewayCommand {
  static override summary = 'Show the project settings: audit detail, retention, attestation, plan and MCP tools/list mode.';
  static override aliases = ['project:get'];
  static override examples = ['<%= config.bin %> project show', '<%= config.bin %> project show --json'];

  async run(): Promise<ProjectSettings> {
    await this.parse(ProjectShow);
    const project = await (await this.api()).request<ProjectSettings>('GET', '/api/v1/project');
    this.log(keyValues({ ...project }));
    return project;
  }
}
