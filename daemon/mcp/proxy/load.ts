// The proxy's reads: everything the stages look at, loaded before the pipeline runs so that the
// stages themselves stay pure. Server, agent, tool, rules and the project's tools/list mode come
// through the state cache (daemon/state-cache/, the database when it is cold or its listener is
// down); the approval a caller presents and the agent's open approvals are always read from the
// database, the latter only for a call that may be held for a new approval (steps/load.ts).
import type { Rule } from '../../../shared/agent-schemas.js';
import { capabilityModelSchema } from '../../../shared/agent-schemas.js';
import { MCP_TOOLS_LIST_MODES, type McpToolsListMode } from '../../../shared/schemas.js';
import type { AgentStatus } from '../../agents/lifecycle.js';
import { countOpen, type ApprovalLimits } from '../../approvals/limits.js';
import { findApproval, type Approval } from '../../approvals/store.js';
import type { SecretBox } from '../../crypto/secret-box.js';
import type { Sql } from '../../db/connect.js';
import type { UpstreamAuth } from '../client/upstream-auth.js';
import { getServerRow, upstreamAuth, type ServerRow } from '../servers/server-rows.js';
import { stateCacheOf } from '../../state-cache/pool-attachment.js';
import type { Kind } from '../../state-cache/table-feeds.js';
import { readOrRecall } from '../../state-cache/last-known.js';
import type { ListTool, ListView } from './list-filter.js';
import type { CallAgent, CallContext, CallServer, CallTool } from './stages/types.js';
import { listContentPolicies } from '../content/content-policies.js';
import { loadedContentPolicy, type LoadedContentPolicy } from '../content/effective.js';
import type { Subject } from '../../../shared/credentials.js';

const AGENT_ID = /^[A-Za-z0-9_-]{1,200}$/;

/** The registered agent X-Agent-Id names, or null (absent, malformed or unknown: anonymous). */
export async function loadAgent(sql: Sql, projectId: string, raw: string | undefined): Promise<CallAgent | null> {
  if (raw === undefined || !AGENT_ID.test(raw)) return null;
  return cached(sql, projectId, 'agent', raw, () => selectAgent(sql, projectId, raw));
}

async function selectAgent(sql: Sql, projectId: string, raw: string): Promise<CallAgent | null> {
  const [row] = await sql<{ id: string; status: AgentStatus; capability_model: unknown }[]>`
    select id, status, capability_model from agents where project_id = ${projectId} and id = ${raw}`;
  if (!row) return null;
  // A model that does not parse tightens nothing here; agent registration and update validate it.
  const model = capabilityModelSchema.safeParse(row.capability_model);
  return { id: row.id, status: row.status, capability: model.success ? model.data : null };
}

/** The server of this project (404 not_found when there is none). */
export function loadServer(sql: Sql, projectId: string, serverId: string): Promise<ServerRow> {
  return cached(sql, projectId, 'server', serverId, () => getServerRow(sql, projectId, serverId));
}

/** Through the state cache; while the database is unreachable, the value last read (last-known.ts) or 503. */
function cached<T>(sql: Sql, projectId: string, kind: Kind, key: string, load: () => Promise<T>): Promise<T> {
  const cache = stateCacheOf(sql);
  const read = () => readOrRecall(sql, `proxy\u0000${projectId}\u0000${kind}\u0000${key}`, load);
  return cache ? cache.read(projectId, kind, key, read) : read();
}

/** The server's sign-in, decrypted; null when this daemon cannot open it (the sign-in stage refuses). */
export function loadAuth(box: SecretBox, server: ServerRow): UpstreamAuth | null {
  try {
    return upstreamAuth(box, server);
  } catch {
    return null;
  }
}

export const callServer = (s: ServerRow): CallServer => ({ id: s.id, name: s.name, status: s.status });

export interface CallInput {
  readonly server: ServerRow;
  readonly agent: CallAgent | null;
  readonly credentialId: string;
  readonly subject?: Subject | null;
  readonly auth: UpstreamAuth | null;
  readonly toolName: string;
  readonly argumentsHash: string;
  readonly arguments: Record<string, unknown> | undefined;
  readonly otherParams: Record<string, unknown>;
  readonly approvalId: string | null;
  readonly approvalLimits: ApprovalLimits;
  readonly detectorBudgetMs: number;
}

interface ToolRow {
  id: string;
  name: string;
  present: boolean;
  approved_hash: string | null;
  current_fingerprint: string;
  risk_level: string | null;
  action: string | null;
  findings: { code?: unknown }[] | null;
  input_schema: unknown;
}

function loadTool(sql: Sql, projectId: string, serverId: string, name: string): Promise<CallTool | null> {
  return cached(sql, projectId, 'tool', `${serverId}\u0000${name}`, () => selectTool(sql, serverId, name));
}

async function selectTool(sql: Sql, serverId: string, name: string): Promise<CallTool | null> {
  const [t] = await sql<ToolRow[]>`
    select id, name, present, approved_hash, current_fingerprint, risk_level, action, findings, input_schema
    from mcp_tools where server_id = ${serverId} and name = ${name}`;
  if (!t) return null;
  return {
    id: t.id,
    name: t.name,
    present: t.present,
    approvedHash: t.approved_hash,
    currentFingerprint: t.current_fingerprint,
    riskLevel: t.risk_level,
    action: t.action,
    findings: (t.findings ?? []).map((f) => f.code).filter((c): c is string => typeof c === 'string'),
    inputSchema: t.input_schema,
  };
}

/** Rules of a tool: server-wide ones, and the agent's (for this tool or for all tools). */
interface ToolRules {
  readonly serverWide: Rule[];
  readonly agentRules: Rule[];
}

function loadRules(sql: Sql, projectId: string, toolId: string, agentId: string | null): Promise<ToolRules> {
  return cached(sql, projectId, 'rules', `${toolId}\u0000${agentId ?? ''}`, () => selectRules(sql, projectId, toolId, agentId));
}

async function selectRules(sql: Sql, projectId: string, toolId: string, agentId: string | null): Promise<ToolRules> {
  const rows = await sql<{ action: Rule; agent_id: string | null }[]>`
    select action, agent_id from mcp_policies
    where project_id = ${projectId}
      and ((mcp_tool_id = ${toolId} and agent_id is null)
        or (${agentId}::text is not null and agent_id = ${agentId} and (mcp_tool_id = ${toolId} or mcp_tool_id is null)))`;
  return {
    serverWide: rows.filter((r) => r.agent_id === null).map((r) => r.action),
    agentRules: rows.filter((r) => r.agent_id !== null).map((r) => r.action),
  };
}

/**
 * The context of one tools/call. openApprovals is null here: it only matters to a call that may be
 * held for a new approval, and steps/load.ts adds it (approvalCountsFor) before the decision.
 */
export async function loadCallContext(sql: Sql, projectId: string, input: CallInput): Promise<CallContext> {
  const tool = await loadTool(sql, projectId, input.server.id, input.toolName);
  const agentId = input.agent?.id ?? null;
  const [rules, approval, contentPolicies] = await Promise.all([
    tool ? loadRules(sql, projectId, tool.id, agentId) : Promise.resolve({ serverWide: [], agentRules: [] }),
    input.approvalId !== null ? findApproval(sql, projectId, input.approvalId) : Promise.resolve<Approval | null>(null),
    loadContentPolicies(sql, projectId),
  ]);
  return {
    now: new Date(),
    agent: input.agent,
    credentialId: input.credentialId,
    subject: input.subject ?? null,
    server: callServer(input.server),
    auth: input.auth,
    toolName: input.toolName,
    tool,
    serverWide: rules.serverWide,
    agentRules: rules.agentRules,
    argumentsHash: input.argumentsHash,
    arguments: input.arguments,
    otherParams: input.otherParams,
    contentPolicies,
    detectorBudgetMs: input.detectorBudgetMs,
    approvalId: input.approvalId,
    approval,
    openApprovals: null,
    approvalLimits: input.approvalLimits,
  };
}

/** The project's content policies, configurations parsed (one read for every server and tool). */
export function loadContentPolicies(sql: Sql, projectId: string): Promise<LoadedContentPolicy[]> {
  return cached(sql, projectId, 'content', 'all', async () => (await listContentPolicies(sql, projectId)).map(loadedContentPolicy));
}

/** The context with the credential's approvals counted, for a call about to be held for a new one. */
export async function approvalCountsFor(sql: Sql, projectId: string, ctx: CallContext): Promise<CallContext> {
  return { ...ctx, openApprovals: await countOpen(sql, projectId, ctx.credentialId, ctx.agent?.id ?? null) };
}

/** What a method other than tools/call carries for the content stage: its params, read as arguments are. */
export interface RequestContent {
  readonly method: string;
  readonly params: Record<string, unknown> | undefined;
  readonly policies: readonly LoadedContentPolicy[];
  readonly detectorBudgetMs: number;
}

/** The context of any other method: the gates (agent, server, sign-in) and the content of its params read it. */
export function gateContext(
  server: ServerRow,
  agent: CallAgent | null,
  auth: UpstreamAuth | null,
  content?: RequestContent,
  subject?: Subject | null,
): CallContext {
  return {
    now: new Date(),
    agent,
    credentialId: '', // read by no gate
    subject: subject ?? null, // the sign-in stage: a token_exchange server needs one
    server: callServer(server),
    auth,
    toolName: '',
    tool: null,
    serverWide: [],
    agentRules: [],
    argumentsHash: '',
    arguments: content?.params,
    ...(content ? { method: content.method } : {}),
    contentPolicies: content?.policies ?? [],
    detectorBudgetMs: content?.detectorBudgetMs ?? 0,
    approvalId: null,
    approval: null,
    openApprovals: null,
    approvalLimits: { perAgent: 0, perCredential: 0, perMinute: 0 },
  };
}

/**
 * What the tools/list filter needs for this caller (list-filter.ts): the project's mode and, unless
 * it is `upstream` (null: the answer goes through untouched), every tool of the server with its rules.
 */
export async function loadToolsListView(sql: Sql, projectId: string, serverId: string, agent: CallAgent | null): Promise<ListView | null> {
  const mode = await cached(sql, projectId, 'project', 'mcp_tools_list', () => selectToolsListMode(sql, projectId));
  if (mode === 'upstream') return null;
  const tools = await cached(sql, projectId, 'list', `${serverId}\u0000${agent?.id ?? ''}`, () =>
    selectListView(sql, projectId, serverId, agent?.id ?? null),
  );
  return { mode, tools, capability: agent?.capability ?? null };
}

/**
 * The project's audit_detail_level (traces/at-rest.ts sealedOriginal: a call's original is sealed
 * at `full` only), through the state cache: a change of the project's settings notifies it.
 */
export function loadAuditLevel(sql: Sql, projectId: string): Promise<string> {
  return cached(sql, projectId, 'project', 'audit_detail_level', async () => {
    const [row] = await sql<{ audit_detail_level: string }[]>`select audit_detail_level from projects where id = ${projectId}`;
    return row?.audit_detail_level ?? 'standard';
  });
}

/** The project's approval_wait_seconds: how long a held call waits for its decision when the client names no wait. */
export function loadApprovalWait(sql: Sql, projectId: string): Promise<number> {
  return cached(sql, projectId, 'project', 'approval_wait_seconds', async () => {
    const [row] = await sql<{ approval_wait_seconds: number }[]>`select approval_wait_seconds from projects where id = ${projectId}`;
    return row?.approval_wait_seconds ?? 0;
  });
}

async function selectToolsListMode(sql: Sql, projectId: string): Promise<McpToolsListMode> {
  const [row] = await sql<{ mcp_tools_list: McpToolsListMode }[]>`select mcp_tools_list from projects where id = ${projectId}`;
  return row?.mcp_tools_list ?? MCP_TOOLS_LIST_MODES[0];
}

async function selectListView(sql: Sql, projectId: string, serverId: string, agentId: string | null): Promise<Map<string, ListTool>> {
  const rows = await sql<
    {
      name: string;
      approved_hash: string | null;
      present: boolean;
      risk_level: string | null;
      action: string | null;
      server_wide: Rule[] | null;
      agent_rules: Rule[] | null;
    }[]
  >`
    select t.name, t.approved_hash, t.present, t.risk_level, t.action,
      (select array_agg(p.action) from mcp_policies p where p.mcp_tool_id = t.id and p.agent_id is null) as server_wide,
      (select array_agg(p.action) from mcp_policies p
        where ${agentId}::text is not null and p.project_id = ${projectId} and p.agent_id = ${agentId}
          and (p.mcp_tool_id = t.id or p.mcp_tool_id is null)) as agent_rules
    from mcp_tools t where t.server_id = ${serverId}`;
  return new Map(
    rows.map((r) => [
      r.name,
      {
        approvedHash: r.approved_hash,
        present: r.present,
        riskLevel: r.risk_level,
        action: r.action,
        serverWide: r.server_wide ?? [],
        agentRules: r.agent_rules ?? [],
      },
    ]),
  );
}
