// gatewayctl agents update: changes only the fields given as flags (PATCH /api/v1/agents/{id}).
// Editor; status, permitted tools and the object fields capability_model and
// infrastructure_permissions need an Admin, which the daemon enforces.
import { Args, Flags } from '@oclif/core';
import { AGENT_STATUSES, agentPatchBody } from '../../../shared/agent-schemas.js';
import { checkBody, fieldsFromFlags, flagFor, parseJsonFlag } from '../../agent-flags.js';
import { GatewayCommand } from '../../base-command.js';
import { UsageError } from '../../errors.js';
import type { Agent } from './get.js';
import { resolveAgent } from '../../name-or-id.js';

/** Flag name -> body field, for the flags passed through as they are. */
const FIELDS = {
  name: 'name',
  description: 'description',
  status: 'status',
  'suspended-reason': 'suspended_reason',
  'risk-classification': 'risk_classification',
  'requires-human-oversight': 'requires_human_oversight',
  'permitted-tool': 'permitted_tools',
  'responsible-person-id': 'responsible_person_id',
  'technical-lead-id': 'technical_lead_id',
  'approval-authority-id': 'approval_authority_id',
  framework: 'framework',
} as const;

/** The object-valued fields, set whole with --set-json KEY=JSON. */
const JSON_FIELDS = ['capability_model', 'fria_assessment', 'transparency_disclosure', 'infrastructure_permissions'] as const;

const RENAMED: Record<string, string> = {
  permitted_tools: '--permitted-tool',
  ...Object.fromEntries(JSON_FIELDS.map((f) => [f, `--set-json ${f}`])),
};

export default class AgentsUpdate extends GatewayCommand {
  static override summary = 'Change an agent; only the fields given as flags change.';
  static override examples = [
    '<%= config.bin %> agents update AGENT_ID --risk-classification high --requires-human-oversight',
    '<%= config.bin %> agents update AGENT_ID --permitted-tool search --permitted-tool read_file',
    '<%= config.bin %> agents update AGENT_ID --set-json \'fria_assessment={"done":true}\'',
  ];

  static override args = {
    id: Args.string({ description: 'ID or name of the agent (see agents list).', required: true }),
  };

  static override flags = {
    name: Flags.string({ summary: 'Name of the agent.' }),
    description: Flags.string({ summary: 'What the agent is.' }),
    status: Flags.string({ summary: 'New status, along the lifecycle only (Admin).', options: [...AGENT_STATUSES] }),
    'suspended-reason': Flags.string({ summary: 'Why the agent is suspended.' }),
    'risk-classification': Flags.string({ summary: 'EU AI Act risk class: MINIMAL, LIMITED, HIGH or UNACCEPTABLE.', aliases: ['risk'] }),
    'requires-human-oversight': Flags.boolean({ summary: 'Whether a human must oversee it.', allowNo: true }),
    'permitted-tool': Flags.string({
      summary: 'A tool the agent may call; repeat for more; replaces the list (Admin).',
      multiple: true,
      multipleNonGreedy: true,
    }),
    'responsible-person-id': Flags.string({ summary: 'User responsible for the agent.' }),
    'technical-lead-id': Flags.string({ summary: 'Technical lead.' }),
    'approval-authority-id': Flags.string({ summary: 'Who approves it.' }),
    framework: Flags.string({ summary: 'Agent framework.' }),
    'set-json': Flags.string({
      summary: `Set an object field whole, KEY=JSON; KEY is one of ${JSON_FIELDS.join(', ')}. Repeatable.`,
      multiple: true,
      multipleNonGreedy: true,
    }),
  };

  async run(): Promise<Agent> {
    const { args, flags } = await this.parse(AgentsUpdate);
    const patch = { ...fieldsFromFlags(flags, FIELDS), ...jsonFields(flags['set-json'] ?? []) };
    if (Object.keys(patch).length === 0) {
      const names = [...Object.keys(FIELDS).map((f) => `--${f}`), '--set-json'];
      throw new UsageError(`nothing to change: give at least one of ${names.join(', ')}`);
    }
    const body = checkBody(agentPatchBody, patch, RENAMED);
    const api = await this.api();
    const { id } = await resolveAgent(api, args.id, this.config.bin);
    const agent = await api.request<Agent>('PATCH', `/api/v1/agents/${encodeURIComponent(id)}`, body);
    this.log(
      `Updated agent ${agent.id} "${agent.name}" (${agent.status}): ${Object.keys(body)
        .map((f) => flagFor(f, RENAMED).replace(/^--(set-json )?/, ''))
        .join(', ')}.`,
    );
    return agent;
  }
}

/** KEY=JSON pairs as body fields; an unknown key, a repeated key or bad JSON is an operator mistake. */
function jsonFields(pairs: readonly string[]): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    const key = (eq < 0 ? pair : pair.slice(0, eq)).trim().replaceAll('-', '_');
    if (eq < 0 || !(JSON_FIELDS as readonly string[]).includes(key)) {
      throw new UsageError(`--set-json ${pair}: expected KEY=JSON with KEY one of ${JSON_FIELDS.join(', ')}`);
    }
    if (key in fields) throw new UsageError(`--set-json ${key} given twice`);
    fields[key] = parseJsonFlag(`--set-json ${key}`, pair.slice(eq + 1));
  }
  return fields;
}
