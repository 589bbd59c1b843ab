// What the policies content commands share: a content policy as /api/v1/mcp/content-policies returns
// it, the flags that name a scope (project, --server, --server with --tool), and how a person sees
// what is in force: each direction and detector with its action and where that action comes from.
import { Flags } from '@oclif/core';
import {
  CONTENT_ACTIONS,
  CONTENT_DETECTORS,
  CONTENT_DIRECTIONS,
  type ContentAction,
  type ContentPolicy,
} from '../shared/mcp-content-schemas.js';
import { table } from './format.js';
import { safeText } from './trace-output.js';

export const CONTENT_POLICIES_ROUTE = '/api/v1/mcp/content-policies';

export interface ContentPolicyList {
  defaults: Record<string, Record<string, ContentAction>>;
  policies: ContentPolicy[];
}

export const scopeFlags = {
  direction: Flags.string({
    summary: 'What is inspected: arguments (going into the tool) or results (coming back).',
    options: [...CONTENT_DIRECTIONS],
    required: true,
  }),
  detector: Flags.string({ summary: 'The detector: secrets, pii or injection.', options: [...CONTENT_DETECTORS], required: true }),
  server: Flags.string({ summary: 'Only for this MCP server (by id or name); without it, the whole project.' }),
  tool: Flags.string({ summary: 'Only for this tool of --server (by name).', dependsOn: ['server'] }),
};

export const actionFlag = Flags.string({
  summary: 'What a finding does: BLOCK, REDACT (secrets, pii), FLAG or OFF.',
  options: [...CONTENT_ACTIONS],
  required: true,
});

interface Scope {
  direction: string;
  detector: string;
  server?: string | undefined;
  tool?: string | undefined;
}

/** The project's policy for exactly this scope, direction and detector, if it has one. */
export function policyFor(list: ContentPolicyList, s: Scope): ContentPolicy | undefined {
  return list.policies.find(
    (p) =>
      p.direction === s.direction && p.detector === s.detector && p.server_id === (s.server ?? null) && p.tool_name === (s.tool ?? null),
  );
}

const scopeOf = (p: ContentPolicy) =>
  p.tool_name !== null ? `tool ${safeText(p.tool_name, 40)} of ${p.server_id}` : p.server_id !== null ? `server ${p.server_id}` : 'project';

export const policyLine = (p: ContentPolicy) => `${p.id} (${p.direction} ${p.detector} ${p.action} for ${scopeOf(p)})`;

/** What applies to every call without a narrower policy, then the narrower ones. */
export function contentTables(list: ContentPolicyList): string {
  const rows = CONTENT_DIRECTIONS.flatMap((direction) =>
    CONTENT_DETECTORS.map((detector) => {
      const own = policyFor(list, { direction, detector });
      return [direction, detector, own?.action ?? list.defaults[direction]?.[detector] ?? null, own ? `policy ${own.id}` : 'default'];
    }),
  );
  const project = table(['DIRECTION', 'DETECTOR', 'ACTION', 'FROM'], rows);
  const narrower = list.policies.filter((p) => p.server_id !== null);
  if (narrower.length === 0) return `Every server and tool:\n${project}\n\nNo server or tool overrides.`;
  const overrides = table(
    ['ID', 'SCOPE', 'DIRECTION', 'DETECTOR', 'ACTION', 'CREATED BY'],
    narrower.map((p) => [p.id, scopeOf(p), p.direction, p.detector, p.action, p.created_by === null ? null : safeText(p.created_by, 40)]),
  );
  return `Every server and tool:\n${project}\n\nOverrides (a tool's over its server's over the project's):\n${overrides}`;
}
