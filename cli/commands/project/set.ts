// gatewayctl project set: changes only the settings named by flags (PATCH /api/v1/project).
import { Flags } from '@oclif/core';
import { APPROVAL_WAIT_MAX_SECONDS, AUDIT_LEVELS, MCP_TOOLS_LIST_MODES, projectPatchBody } from '../../../shared/schemas.js';
import { GatewayCommand } from '../../base-command.js';
import { keyValues } from '../../format.js';
import { UsageError } from '../../errors.js';
import type { ProjectSettings } from '../../../shared/schemas.js';

const decimal = Flags.custom<number>({
  async parse(input) {
    const value = Number(input);
    if (input.trim() === '' || !Number.isFinite(value)) throw new Error(`expected a number, got "${input}"`);
    return value;
  },
});

/** Flag name -> body field; the body's field names are the daemon's, snake_case. */
const FIELDS = {
  name: 'name',
  'audit-detail-level': 'audit_detail_level',
  'retention-days': 'retention_days',
  attestation: 'attestation_enabled',
  tier: 'tier',
  'rate-limit-per-minute': 'rate_limit_per_minute',
  'included-requests': 'included_requests',
  'monthly-base-fee-eur': 'monthly_base_fee_eur',
  'overage-eur-per-1000': 'overage_eur_per_1000',
  'mcp-tools-list': 'mcp_tools_list',
  'approval-wait-seconds': 'approval_wait_seconds',
} as const;

export default class ProjectSet extends GatewayCommand {
  static override summary = 'Change project settings; only the settings given as flags change.';
  static override aliases = ['project:update'];
  static override examples = [
    '<%= config.bin %> project set --audit-detail-level full --retention-days 90',
    '<%= config.bin %> project set --no-attestation',
    '<%= config.bin %> project set --mcp-tools-list callable',
    '<%= config.bin %> project set --approval-wait-seconds 120',
  ];

  static override flags = {
    name: Flags.string({ summary: 'Project name.' }),
    'audit-detail-level': Flags.string({ summary: 'How much of each request the ledger keeps.', options: [...AUDIT_LEVELS] }),
    'retention-days': Flags.integer({ summary: 'Days traces are kept.' }),
    attestation: Flags.boolean({ summary: 'Anchor the ledger (--no-attestation turns it off).', allowNo: true }),
    tier: Flags.string({ summary: 'Plan tier.' }),
    'rate-limit-per-minute': Flags.integer({ summary: 'Requests per minute before 429 rate_limited.' }),
    'included-requests': Flags.integer({ summary: 'Requests included in the monthly base fee.' }),
    'monthly-base-fee-eur': decimal({ summary: 'Monthly base fee in EUR.' }),
    'overage-eur-per-1000': decimal({ summary: 'Price in EUR per 1000 requests over the included ones.' }),
    'mcp-tools-list': Flags.string({
      summary: "What the MCP proxy leaves of a tools/list answer: admitted tools, callable ones, or the upstream's answer.",
      options: [...MCP_TOOLS_LIST_MODES],
    }),
    'approval-wait-seconds': Flags.integer({
      summary: `How long the MCP proxy keeps a held call open for its decision (0 to ${APPROVAL_WAIT_MAX_SECONDS}; 0: answer -32004 at once).`,
    }),
  };

  async run(): Promise<ProjectSettings> {
    const { flags } = await this.parse(ProjectSet);
    const patch: Record<string, unknown> = {};
    for (const [flag, field] of Object.entries(FIELDS)) {
      const value = flags[flag as keyof typeof FIELDS];
      if (value !== undefined) patch[field] = value;
    }
    if (Object.keys(patch).length === 0) {
      throw new UsageError(
        `nothing to change: give at least one of ${Object.keys(FIELDS)
          .map((f) => `--${f}`)
          .join(', ')}`,
      );
    }
    const body = projectPatchBody.safeParse(patch);
    if (!body.success) throw new UsageError(body.error.issues.map((i) => `${flagOf(i.path[0])}: ${i.message}`).join('; '));
    const project = await (await this.api()).request<ProjectSettings>('PATCH', '/api/v1/project', body.data);
    this.log(`Updated project ${project.name}:`);
    this.log(keyValues(Object.fromEntries(Object.keys(body.data).map((k) => [k, project[k as keyof ProjectSettings]]))));
    return project;
  }
}

function flagOf(field: PropertyKey | undefined): string {
  const flag = Object.entries(FIELDS).find(([, f]) => f === field)?.[0];
  return flag ? `--${flag}` : String(field);
}
