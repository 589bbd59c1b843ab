// The catalog of MCP server templates: common SaaS connectors with the tool rules a security team
// would start from. Every one of them signs in with OAuth 2.0, which the gateway cannot attach
// (it attaches none, bearer and header only), so every template is locked: available false.
import { ATTACHABLE_AUTH, type MCP_RULES } from '../../../shared/mcp-schemas.js';

export interface TemplatePolicy {
  readonly tool: string;
  readonly action: (typeof MCP_RULES)[number];
}

export interface Template {
  readonly id: string;
  readonly name: string;
  readonly description: string;
  readonly category: string;
  readonly connector_type: string;
  readonly auth_method: string;
  readonly default_policies: readonly TemplatePolicy[];
  readonly available: boolean;
  readonly unavailable_reason: 'auth_method_unsupported' | null;
}

/** How each sign-in method is named to an operator (the 409 of from-template names it). */
export const AUTH_METHOD_NAMES: Readonly<Record<string, string>> = {
  oauth2: 'OAuth 2.0 (authorization code flow with user consent)',
};

type Entry = Omit<Template, 'available' | 'unavailable_reason'>;

const ENTRIES: readonly Entry[] = [
  {
    id: 'github',
    name: 'GitHub',
    category: 'developer_tools',
    connector_type: 'github',
    auth_method: 'oauth2',
    description: 'Repositories, issues, pull requests and workflows of a GitHub organization.',
    default_policies: [
      { tool: 'delete_repository', action: 'DENY' },
      { tool: 'merge_pull_request', action: 'REQUIRE_APPROVAL' },
      { tool: 'push_files', action: 'REQUIRE_APPROVAL' },
      { tool: 'create_issue', action: 'LOG_ONLY' },
      { tool: 'search_code', action: 'ALLOW' },
    ],
  },
  {
    id: 'slack',
    name: 'Slack',
    category: 'communication',
    connector_type: 'slack',
    auth_method: 'oauth2',
    description: 'Channels, messages and users of a Slack workspace.',
    default_policies: [
      { tool: 'delete_message', action: 'DENY' },
      { tool: 'post_message', action: 'REQUIRE_APPROVAL' },
      { tool: 'invite_user', action: 'REQUIRE_APPROVAL' },
      { tool: 'list_channels', action: 'ALLOW' },
      { tool: 'read_channel_history', action: 'LOG_ONLY' },
    ],
  },
  {
    id: 'google-drive',
    name: 'Google Drive',
    category: 'storage',
    connector_type: 'google_drive',
    auth_method: 'oauth2',
    description: 'Files and folders in Google Drive, including shared drives.',
    default_policies: [
      { tool: 'delete_file', action: 'DENY' },
      { tool: 'share_file', action: 'REQUIRE_APPROVAL' },
      { tool: 'upload_file', action: 'LOG_ONLY' },
      { tool: 'search_files', action: 'ALLOW' },
      { tool: 'read_file', action: 'LOG_ONLY' },
    ],
  },
  {
    id: 'jira',
    name: 'Jira',
    category: 'project_management',
    connector_type: 'jira',
    auth_method: 'oauth2',
    description: 'Issues, projects and sprints in Jira Cloud.',
    default_policies: [
      { tool: 'delete_issue', action: 'DENY' },
      { tool: 'transition_issue', action: 'LOG_ONLY' },
      { tool: 'create_issue', action: 'LOG_ONLY' },
      { tool: 'search_issues', action: 'ALLOW' },
    ],
  },
  {
    id: 'notion',
    name: 'Notion',
    category: 'knowledge_base',
    connector_type: 'notion',
    auth_method: 'oauth2',
    description: 'Pages and databases of a Notion workspace.',
    default_policies: [
      { tool: 'delete_page', action: 'DENY' },
      { tool: 'update_page', action: 'REQUIRE_APPROVAL' },
      { tool: 'create_page', action: 'LOG_ONLY' },
      { tool: 'search', action: 'ALLOW' },
    ],
  },
  {
    id: 'salesforce',
    name: 'Salesforce',
    category: 'crm',
    connector_type: 'salesforce',
    auth_method: 'oauth2',
    description: 'Accounts, contacts, opportunities and SOQL queries in Salesforce.',
    default_policies: [
      { tool: 'delete_record', action: 'DENY' },
      { tool: 'update_record', action: 'REQUIRE_APPROVAL' },
      { tool: 'create_record', action: 'REQUIRE_APPROVAL' },
      { tool: 'run_soql_query', action: 'LOG_ONLY' },
    ],
  },
  {
    id: 'confluence',
    name: 'Confluence',
    category: 'knowledge_base',
    connector_type: 'confluence',
    auth_method: 'oauth2',
    description: 'Spaces and pages in Confluence Cloud.',
    default_policies: [
      { tool: 'delete_page', action: 'DENY' },
      { tool: 'update_page', action: 'REQUIRE_APPROVAL' },
      { tool: 'search_content', action: 'ALLOW' },
    ],
  },
  {
    id: 'hubspot',
    name: 'HubSpot',
    category: 'crm',
    connector_type: 'hubspot',
    auth_method: 'oauth2',
    description: 'Contacts, companies, deals and tickets in HubSpot CRM.',
    default_policies: [
      { tool: 'delete_object', action: 'DENY' },
      { tool: 'send_email', action: 'REQUIRE_APPROVAL' },
      { tool: 'update_object', action: 'REQUIRE_APPROVAL' },
      { tool: 'search_objects', action: 'LOG_ONLY' },
    ],
  },
];

/** Locked while the gateway cannot attach OAuth 2.0; a test holds every auth_method outside ATTACHABLE_AUTH. */
const LOCKED = { available: false, unavailable_reason: 'auth_method_unsupported' } as const;

export const TEMPLATES: readonly Template[] = Object.freeze(ENTRIES.map((e) => Object.freeze({ ...e, ...LOCKED })));

export function findTemplate(id: string): Template | undefined {
  return TEMPLATES.find((t) => t.id === id);
}

/** The 409 text of from-template: which sign-in the template needs, and what to do instead. */
export function lockedMessage(template: Template): string {
  const method = AUTH_METHOD_NAMES[template.auth_method] ?? template.auth_method;
  return (
    `Template ${template.id} is locked: it signs in with ${method} (auth_method ${template.auth_method}), which the gateway cannot attach; `
    + `register the server directly with auth_method ${ATTACHABLE_AUTH.filter((m) => m !== 'none').join(' or ')} instead.`
  );
}
