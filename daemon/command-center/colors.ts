// Display colours of the command center: a policy's by its action (what it does when it fires),
// a content type's by kind. Fixed, so that a chart keeps its colours between refreshes.

const ACTION_COLORS: Readonly<Record<string, string>> = {
  BLOCK: '#dc2626',
  DENY: '#dc2626',
  REDIRECT: '#b91c1c',
  REQUIRE_APPROVAL: '#7c3aed',
  JUSTIFY: '#d97706',
  WARN: '#f59e0b',
  FLAG: '#eab308',
  LOG_ONLY: '#eab308',
  REDACT: '#2563eb',
};
const MCP_RULE = /^MCP (DENY|REQUIRE_APPROVAL|LOG_ONLY): /;
const UNKNOWN = '#6b7280';

const CONTENT_COLORS: Readonly<Record<string, string>> = {
  text: '#3b82f6',
  document: '#10b981',
  image: '#a855f7',
  audio: '#f59e0b',
  video: '#ef4444',
  archive: '#64748b',
  mixed: '#ec4899',
  other: '#94a3b8',
};

/** A prompt policy by its current action, an MCP tool rule (`MCP <rule>: <tool>`) by its rule; a deleted policy is grey. */
export function policyColor(name: string, promptPolicyAction: string | undefined): string {
  const action = promptPolicyAction ?? MCP_RULE.exec(name)?.[1];
  return (action && ACTION_COLORS[action]) || UNKNOWN;
}

export function contentTypeColor(contentType: string): string {
  return CONTENT_COLORS[contentType] ?? UNKNOWN;
}
