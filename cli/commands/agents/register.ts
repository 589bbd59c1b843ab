// gatewayctl agents register: a new agent, PENDING_APPROVAL until an Admin approves it (Editor).
import { Flags } from '@oclif/core';
import { PROFILES, agentRegisterBody } from '../../../shared/agent-schemas.js';
import { checkBody, fieldsFromFlags, parseJsonFlag } from '../../agent-flags.js';
import { GatewayCommand } from '../../base-command.js';
import type { Agent } from './get.js';

/** Flag name -> body field, for the flags passed through as they are. */
const FIELDS = {
  name: 'name',
  description: 'description',
  'agent-type': 'agent_type',
  model: 'model',
  'risk-classification': 'risk_classification',
  'purpose-description': 'purpose_description',
  'intended-purpose': 'intended_purpose',
  'intended-users': 'intended_users',
  'known-limitations': 'known_limitations',
  'requires-human-oversight': 'requires_human_oversight',
  'annex-iii-domain': 'annex_iii_domain',
  'prohibited-screen-result': 'prohibited_screen_result',
  'provider-or-deployer': 'provider_or_deployer',
  'responsible-person-id': 'responsible_person_id',
  'technical-lead-id': 'technical_lead_id',
  'approval-authority-id': 'approval_authority_id',
  tag: 'tags',
  permission: 'permissions',
  framework: 'framework',
  'protection-profile': 'protection_profile',
} as const;

const RENAMED = { tags: '--tag', permissions: '--permission' };

export default class AgentsRegister extends GatewayCommand {
  static override summary = 'Register an agent; it stays PENDING_APPROVAL until an Admin approves it.';
  static override aliases = ['agents:create'];
  static override examples = [
    '<%= config.bin %> agents register --name support-bot --risk-classification limited --protection-profile safe',
    '<%= config.bin %> agents register --name ops --tag ops --tag prod --infrastructure-permissions \'{"k8s":["read"]}\'',
  ];

  static override flags = {
    name: Flags.string({ summary: 'Name of the agent.', required: true }),
    description: Flags.string({ summary: 'What the agent is.' }),
    'agent-type': Flags.string({ summary: 'Kind of agent, e.g. assistant or autonomous.' }),
    model: Flags.string({ summary: 'Model the agent runs on.' }),
    'risk-classification': Flags.string({ summary: 'EU AI Act risk class: MINIMAL, LIMITED, HIGH or UNACCEPTABLE.', aliases: ['risk'] }),
    'purpose-description': Flags.string({ summary: "Purpose, in the provider's words." }),
    'intended-purpose': Flags.string({ summary: 'Intended purpose (EU AI Act Art. 13).' }),
    'intended-users': Flags.string({ summary: 'Who is meant to use it.' }),
    'known-limitations': Flags.string({ summary: 'Known limitations.' }),
    'requires-human-oversight': Flags.boolean({
      summary: 'Whether a human must oversee it (--no-requires-human-oversight says not).',
      allowNo: true,
    }),
    'annex-iii-domain': Flags.string({ summary: 'Annex III high-risk domain, if any.' }),
    'prohibited-screen-result': Flags.string({ summary: 'Outcome of the Art. 5 prohibited-practice screen.' }),
    'provider-or-deployer': Flags.string({ summary: 'Whether the project is provider or deployer.' }),
    'responsible-person-id': Flags.string({ summary: 'User responsible for the agent.' }),
    'technical-lead-id': Flags.string({ summary: 'Technical lead.' }),
    'approval-authority-id': Flags.string({ summary: 'Who approves it.' }),
    tag: Flags.string({ summary: 'A tag; repeat for more.', multiple: true, multipleNonGreedy: true }),
    permission: Flags.string({ summary: 'A permission; repeat for more.', multiple: true, multipleNonGreedy: true }),
    'infrastructure-permissions': Flags.string({ summary: 'Infrastructure permissions as a JSON object.' }),
    framework: Flags.string({ summary: 'Agent framework, e.g. langchain.' }),
    'protection-profile': Flags.string({ summary: 'Capability model to start from.', options: [...PROFILES] }),
  };

  async run(): Promise<Agent> {
    const { flags } = await this.parse(AgentsRegister);
    const fields = fieldsFromFlags(flags, FIELDS);
    if (flags['infrastructure-permissions'] !== undefined) {
      fields.infrastructure_permissions = parseJsonFlag('--infrastructure-permissions', flags['infrastructure-permissions']);
    }
    const body = checkBody(agentRegisterBody, fields, RENAMED);
    const agent = await (await this.api()).request<Agent>('POST', '/api/v1/agents', body);
    const risk = agent.risk_classification ? `, risk ${agent.risk_classification}` : '';
    this.log(`Registered agent ${agent.id} "${agent.name}" (${agent.status}, profile ${agent.protection_profile}${risk}).`);
    return agent;
  }
}
