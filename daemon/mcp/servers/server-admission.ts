// Admission: an Admin (a person: a user token) approves a server with a rule per tool, resumes a
// blocked server, admits tools later (tools/release), or sets a tool's server-wide rule (verdict).
// Each runs in one transaction holding the server row, so two admins acting at once are
// serialised and never leave a half-admitted state; every refusal throws before anything is
// written. The checks run in this order, the first failing one answering:
//
//   approve (PENDING_APPROVAL):  mcp_scan_missing, mcp_scan_failed, mcp_scan_not_run,
//     mcp_scan_unreadable, mcp_release_tools_required, mcp_release_tool_missing,
//     mcp_release_tool_unknown, mcp_release_tool_duplicate, mcp_release_rule_invalid,
//     mcp_release_surface_changed, mcp_release_author_unresolved
//   resume (BLOCKED):            mcp_resume_takes_no_tools
//   release (tools/release):     mcp_release_server_not_active, mcp_release_tools_required,
//     mcp_release_tool_unknown, mcp_release_tool_duplicate, mcp_release_rule_invalid,
//     mcp_release_already_released, mcp_release_surface_changed, mcp_release_author_unresolved
import { createId } from '@paralleldrive/cuid2';
import { RULES, type Rule } from '../../../shared/agent-schemas.js';
import { GatewayError } from '../../../shared/errors.js';
import { quoted } from '../../../shared/text.js';
import type { Sql, Tx } from '../../db/connect.js';
import { appendAdmin, appendTraces } from '../../ledger/append.js';
import { actorLabel, adminEntry, type Actor } from '../../project/admin-actions.js';
import { getServerRow, presentServer, scanStateOf, type ServerRow, type ServerItem } from './server-rows.js';

interface ToolState {
  id: string;
  name: string;
  current_fingerprint: string;
  approved_hash: string | null;
}
interface Decision {
  tool: ToolState;
  rule: Rule;
}
export interface Released {
  tool_id: string;
  tool_name: string;
  rule: Rule;
  approved_hash: string;
}

const SCAN_REFUSAL: Record<string, 'mcp_scan_missing' | 'mcp_scan_failed' | 'mcp_scan_not_run' | 'mcp_scan_unreadable'> = {
  never: 'mcp_scan_missing',
  failed: 'mcp_scan_failed',
  not_run: 'mcp_scan_not_run',
  unreadable: 'mcp_scan_unreadable',
};

const isRule = (v: unknown): v is Rule => typeof v === 'string' && (RULES as readonly string[]).includes(v);
const asObject = (v: unknown): Record<string, unknown> =>
  v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};

/** At most five names, quoted, and how many more. */
function quotedList(names: readonly string[]): string {
  return names.slice(0, 5).map(quoted).join(', ') + (names.length > 5 ? ` and ${names.length - 5} more` : '');
}

/** The body's tools array, checked against the decidable set in the documented order. */
function decide(body: unknown, decidable: readonly ToolState[], mode: 'approve' | 'release', author: string | null): Decision[] {
  const tools = asObject(body).tools;
  if (!Array.isArray(tools) || (mode === 'release' && tools.length === 0)) throw new GatewayError('mcp_release_tools_required');
  const entries = tools.map(asObject);
  const byId = new Map(decidable.map((t) => [t.id, t]));
  if (mode === 'approve') {
    const named = new Set(entries.map((e) => e.tool_id));
    const missing = decidable.filter((t) => !named.has(t.id)).map((t) => t.name);
    if (missing.length > 0) throw new GatewayError('mcp_release_tool_missing', `Tools of the last scan not named: ${quotedList(missing)}.`);
  }
  const unknown = entries.filter((e) => typeof e.tool_id !== 'string' || !byId.has(e.tool_id));
  if (unknown.length > 0)
    throw new GatewayError(
      'mcp_release_tool_unknown',
      `Not in the decidable set: ${quotedList(unknown.map((e) => (typeof e.tool_id === 'string' ? e.tool_id : JSON.stringify(e.tool_id ?? null))))}.`,
    );
  const seen = new Set<string>();
  for (const e of entries) {
    if (seen.has(e.tool_id as string))
      throw new GatewayError('mcp_release_tool_duplicate', `Named more than once: ${quoted(byId.get(e.tool_id as string)!.name)}.`);
    seen.add(e.tool_id as string);
  }
  const badRule = entries.find((e) => !isRule(e.rule));
  if (badRule)
    throw new GatewayError(
      'mcp_release_rule_invalid',
      `Rule ${quoted(typeof badRule.rule === 'string' ? badRule.rule : JSON.stringify(badRule.rule ?? null))} is not one of ${RULES.join(', ')}.`,
    );
  if (mode === 'release') {
    const admitted = entries
      .map((e) => byId.get(e.tool_id as string)!)
      .filter((t) => t.approved_hash !== null && t.approved_hash === t.current_fingerprint);
    if (admitted.length > 0)
      throw new GatewayError(
        'mcp_release_already_released',
        `Admitted and unchanged: ${admitted.map((t) => t.name).join(', ')}; change a rule through the verdict route.`,
      );
  }
  const changed = entries.filter((e) => e.fingerprint !== byId.get(e.tool_id as string)!.current_fingerprint);
  if (changed.length > 0)
    throw new GatewayError(
      'mcp_release_surface_changed',
      `Changed since the list was read: ${changed.map((e) => byId.get(e.tool_id as string)!.name).join(', ')}; reload and retry.`,
    );
  if (!author) throw new GatewayError('mcp_release_author_unresolved');
  return entries.map((e) => ({ tool: byId.get(e.tool_id as string)!, rule: e.rule as Rule }));
}

/** Replaces a tool's server-wide rules with one confirmed by a person, which makes the tool's rule an Admin's (is_auto_generated false). */
async function setServerWideRule(
  tx: Tx,
  server: ServerRow,
  toolId: string,
  rule: Rule,
  reason: string | null,
  actor: Actor,
): Promise<void> {
  await tx`update mcp_tools set is_auto_generated = false where id = ${toolId} and is_auto_generated`;
  await tx`delete from mcp_policies where mcp_tool_id = ${toolId} and agent_id is null`;
  await tx`
    insert into mcp_policies (id, project_id, server_id, mcp_tool_id, action, reason, is_auto_generated, created_by)
    values (${createId()}, ${server.project_id}, ${server.id}, ${toolId}, ${rule}, ${reason}, false, ${actorLabel(actor)})`;
}

async function admit(
  tx: Tx,
  server: ServerRow,
  decisions: readonly Decision[],
  kind: 'approve' | 'release',
  actor: Actor,
): Promise<{ release_id: string; released: Released[] }> {
  const releaseId = createId();
  const released: Released[] = [];
  for (const { tool, rule } of decisions) {
    await tx`
      update mcp_tools set approved_hash = current_fingerprint, approved_at = now(), approved_by = ${actorLabel(actor)},
        admitted_definition = jsonb_build_object(
          'title', title, 'description', description, 'input_schema', input_schema, 'output_schema', output_schema, 'annotations', annotations)
      where id = ${tool.id}`;
    await setServerWideRule(tx, server, tool.id, rule, `admitted by ${actorLabel(actor)}`, actor);
    released.push({ tool_id: tool.id, tool_name: tool.name, rule, approved_hash: tool.current_fingerprint });
  }
  await tx`
    insert into mcp_releases (id, project_id, server_id, kind, released, created_by)
    values (${releaseId}, ${server.project_id}, ${server.id}, ${kind}, ${tx.json(released as never)}, ${actorLabel(actor)})`;
  await appendAdmin(
    tx,
    server.project_id,
    released.map((r) =>
      adminEntry(actor, {
        action: 'MCP_TOOL_RELEASED',
        activity: 'enable',
        targetType: 'mcp_tool',
        targetId: r.tool_id,
        details: { server_id: server.id, tool_name: r.tool_name, rule: r.rule, approved_hash: r.approved_hash, release_id: releaseId },
      }),
    ),
  );
  if (released.length > 0) {
    await appendTraces(tx, server.project_id, [
      {
        traceType: 'POLICY_CHANGE',
        decision: 'POLICY_CHANGE',
        actionName: `mcp.tools.${kind}`,
        reason: `${released.length} tool(s) of server ${server.name} admitted by ${actorLabel(actor)}`,
        content: { server_id: server.id, release_id: releaseId, released, actor: actorLabel(actor), request_id: actor.requestId },
      },
    ]);
  }
  return { release_id: releaseId, released };
}

async function toolsOf(tx: Tx, serverId: string): Promise<ToolState[]> {
  return tx<ToolState[]>`
    select id, name, current_fingerprint, approved_hash from mcp_tools where server_id = ${serverId} and present order by name for update`;
}

export type ActivateReply = { id: string; status: 'ACTIVE'; release: { release_id: string; released: Released[] } } | ServerItem;

/** POST /mcp/servers/{id}/activate: approve a PENDING_APPROVAL server, or resume a BLOCKED one. */
export async function activateServer(sql: Sql, projectId: string, id: string, body: unknown, actor: Actor): Promise<ActivateReply> {
  return sql.begin(async (tx) => {
    const server = await getServerRow(tx, projectId, id, true);
    if (server.status === 'BLOCKED') {
      if ('tools' in asObject(body)) throw new GatewayError('mcp_resume_takes_no_tools');
      await tx`update mcp_servers set status = 'ACTIVE', updated_at = now() where id = ${id}`;
      await appendAdmin(tx, projectId, [
        adminEntry(actor, {
          action: 'mcp.server.resume',
          activity: 'resume',
          targetType: 'mcp_server',
          targetId: id,
          details: { name: server.name, from: 'BLOCKED', to: 'ACTIVE' },
        }),
      ]);
      return presentServer(await getServerRow(tx, projectId, id));
    }
    if (server.status !== 'PENDING_APPROVAL') throw new GatewayError('mcp_server_transition_invalid', 'The server is already ACTIVE.');
    const scan = scanStateOf(server);
    if (scan !== 'succeeded') throw new GatewayError(SCAN_REFUSAL[scan] ?? 'mcp_scan_unreadable');
    const stored = asObject(server.scan_result).tools;
    if (!Array.isArray(stored)) throw new GatewayError('mcp_scan_unreadable');
    const decisions = decide(body, await toolsOf(tx, id), 'approve', actor.principal?.userId ?? null);
    await tx`update mcp_servers set status = 'ACTIVE', updated_at = now() where id = ${id}`;
    const release = await admit(tx, server, decisions, 'approve', actor);
    await appendAdmin(tx, projectId, [
      adminEntry(actor, {
        action: 'mcp.server.activate',
        activity: 'activate',
        targetType: 'mcp_server',
        targetId: id,
        details: {
          name: server.name,
          from: 'PENDING_APPROVAL',
          to: 'ACTIVE',
          release_id: release.release_id,
          tools: release.released.length,
        },
      }),
    ]);
    return { id, status: 'ACTIVE' as const, release };
  });
}

/** POST /mcp/servers/{id}/tools/release: admit new or changed tools of an ACTIVE server. */
export async function releaseTools(
  sql: Sql,
  projectId: string,
  id: string,
  body: unknown,
  actor: Actor,
): Promise<{ release_id: string; released: Released[] }> {
  return sql.begin(async (tx) => {
    const server = await getServerRow(tx, projectId, id, true);
    if (server.status !== 'ACTIVE') throw new GatewayError('mcp_release_server_not_active');
    const decisions = decide(body, await toolsOf(tx, id), 'release', actor.principal?.userId ?? null);
    return admit(tx, server, decisions, 'release', actor);
  });
}

/** POST /mcp/servers/{id}/tools/{tool_id}/verdict: set or loosen the server-wide rule; admits nothing. */
export async function setVerdict(
  sql: Sql,
  projectId: string,
  serverId: string,
  toolId: string,
  action: Rule,
  reason: string | null,
  actor: Actor,
): Promise<Record<string, unknown>> {
  return sql.begin(async (tx) => {
    const server = await getServerRow(tx, projectId, serverId, true);
    const [tool] = await tx<
      { id: string; name: string }[]
    >`select id, name from mcp_tools where id = ${toolId} and server_id = ${serverId}`;
    if (!tool) throw new GatewayError('not_found', 'No tool with this id on this server.');
    const before = await tx<{ action: string }[]>`select action from mcp_policies where mcp_tool_id = ${toolId} and agent_id is null`;
    await setServerWideRule(tx, server, toolId, action, reason, actor);
    await appendAdmin(tx, projectId, [
      adminEntry(actor, {
        action: 'mcp.tool.verdict',
        activity: 'update',
        targetType: 'mcp_tool',
        targetId: toolId,
        details: { server_id: serverId, tool_name: tool.name, from: before.map((b) => b.action), to: action, reason },
      }),
    ]);
    await appendTraces(tx, projectId, [
      {
        traceType: 'POLICY_CHANGE',
        decision: 'POLICY_CHANGE',
        actionName: 'mcp.tool.verdict',
        reason: `rule of ${tool.name} set to ${action} by ${actorLabel(actor)}`,
        content: {
          server_id: serverId,
          tool_id: toolId,
          tool_name: tool.name,
          from: before.map((b) => b.action),
          to: action,
          reason,
          actor: actorLabel(actor),
        },
      },
    ]);
    return { tool_id: toolId, tool_name: tool.name, policy_action: action, reason };
  });
}
