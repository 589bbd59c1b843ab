// gatewayctl project show: the project's settings and plan.
import { GatewayCommand } from '../../base-command.js';
import { keyValues } from '../../format.js';

export interface ProjectSettings {
  id: string;
  name: string;
  audit_detail_level: string;
  retention_days: number;
  attestation_enabled: boolean;
  tier: string;
  rate_limit_per_minute: number;
  included_requests: number;
  monthly_base_fee_eur: number;
  overage_eur_per_1000: number;
  created_at: string;
  updated_at: string;
}

export default class ProjectShow extends GatewayCommand {
  static override summary = 'Show the project settings: audit detail, retention, attestation and plan.';

  async run(): Promise<ProjectSettings> {
    await this.parse(ProjectShow);
    const project = await (await this.api()).request<ProjectSettings>('GET', '/api/v1/project');
    this.log(keyValues({ ...project }));
    return project;
  }
}
