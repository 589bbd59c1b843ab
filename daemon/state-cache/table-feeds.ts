// What a notification about a table drops from the state cache (cache.ts): the kinds of entry each
// notifying table feeds, and every kind, for a change whose table is not named.

/** What one cached entry is of: a notification names the table, TABLE_FEEDS the kinds it drops. */
export type Kind = 'server' | 'tool' | 'rules' | 'list' | 'agent' | 'session' | 'project' | 'content';

export const TABLE_FEEDS: Readonly<Record<string, readonly (Kind | 'credential')[]>> = Object.freeze({
  mcp_servers: ['server', 'tool', 'rules', 'list', 'session'],
  mcp_tools: ['server', 'tool', 'rules', 'list'],
  mcp_policies: ['rules', 'list'],
  mcp_content_policies: ['content'],
  agents: ['agent'],
  mcp_proxy_sessions: ['session'],
  credentials: ['credential'],
  project_stops: ['credential'],
  projects: ['project'],
  // Nothing cached: a change of an approval's status (00018) only wakes the calls waiting on it (watch).
  approvals: [],
});

export const ALL_KINDS: readonly (Kind | 'credential')[] = [
  'server',
  'tool',
  'rules',
  'list',
  'agent',
  'session',
  'project',
  'content',
  'credential',
];
