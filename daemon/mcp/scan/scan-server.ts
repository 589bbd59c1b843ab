// POST /mcp/servers/{id}/scan: read a server's tools and record them. A scan never changes the
// server's status, sets no rule and admits nothing. In order:
//
// A stdio server (transport stdio) is read through its process (mcp/stdio/, client/upstream.ts)
// instead: its step 1 is that this daemon may run it (mcp_stdio_unavailable,
// mcp_stdio_command_not_allowed -> scan_state not_run), and step 2 lists its tools over stdio.
//
//   1. configuration: the sign-in must be attachable (auth_method_unsupported, auth_token_missing;
//      a token_exchange server is scanned with the gateway's own token, scan-sign-in.ts) and the address allowed (upstream_url_forbidden, checked again on the resolved address by
//      the dispatcher) -> 400, scan_state not_run, nothing sent;
//   2. talk to the server (client/session.ts: both protocol eras, JSON or SSE, time and size limits, the
//      whole scan within scanTimeoutMs); a failure -> 200 scanned false, scan_state failed with
//      reason unreachable (a time limit included) | bad_status | rpc_error | invalid_response;
//   3. record: tools new, changed, vanished; each classified (classify.ts) and checked for
//      poisoning (poisoning.ts) -> 200 scanned true.
//
// The outcome is written in its own transaction after the network part, so no database lock is
// held while waiting on an upstream.
import type { ScanReply } from '../../../shared/mcp-schemas.js';
import { createHash } from 'node:crypto';
import { createId } from '@paralleldrive/cuid2';
import { GatewayError } from '../../../shared/errors.js';
import type { SecretBox } from '../../crypto/secret-box.js';
import type { Sql, Tx } from '../../db/connect.js';
import { authHeaders, type UpstreamAuth } from '../client/upstream-auth.js';
import { classifyTool } from './classify.js';
import { scanSignIn } from './scan-sign-in.js';
import { scanServer, toolFingerprint, type McpTool, type ScanResult } from '../client/session.js';
import { McpClientError, scanOutcomeOf } from '../client/errors.js';
import { poisoningFindings } from './poisoning.js';
import { getServerRow, SCAN_FORMAT, upstreamAuth, type ServerRow } from '../servers/server-rows.js';
import { parseUpstreamUrl, UpstreamForbiddenError } from '../client/ssrf-guard.js';
import type { Dispatcher } from 'undici';
import { emitEvent } from '../../notifications/emit.js';
import { listTools, type RpcError } from '../client/upstream.js';
import type { McpFailureKind } from '../client/errors.js';
import { stdioDefinition } from '../servers/stdio-record.js';
import { STDIO_ERRORS, type StdioUpstream } from '../stdio/stdio-upstream.js';
import { StdioRefusal, type StdioServers } from '../stdio/stdio-servers.js';
import { scanFailed, toolChanged } from '../../notifications/events.js';

export interface ScanDeps {
  readonly sql: Sql;
  readonly box: SecretBox;
  readonly dispatcher: Dispatcher;
  /** Connect + response headers of each request. */
  readonly timeoutMs: number;
  /** Between complete SSE events of an answer. */
  readonly idleTimeoutMs: number;
  /** The whole scan (GATEWAY_SCAN_TIMEOUT_SECONDS): past it, scanned false, reason unreachable. */
  readonly scanTimeoutMs: number;
  readonly responseLimitBytes: number;
  /** The daemon's stdio servers; a stdio server is not scanned without them. */
  readonly stdio?: StdioServers;
}

const sha256 = (text: string): string => 'sha256:' + createHash('sha256').update(text, 'utf8').digest('hex');

async function recordNotRun(sql: Sql, row: ServerRow, reason: string, detail: string): Promise<never> {
  await sql`
    update mcp_servers set scan_state = 'not_run', scan_reason = ${reason}, scan_detail = ${detail}, is_healthy = false,
      last_scan_attempt_at = now(), updated_at = now()
    where id = ${row.id}`;
  throw new GatewayError(reason as 'upstream_url_forbidden');
}

/** Step 1: what must hold before any packet leaves. */
async function checkConfiguration(deps: ScanDeps, row: ServerRow): Promise<UpstreamAuth> {
  let auth: UpstreamAuth;
  try {
    auth = await scanSignIn(deps.sql, row.id, upstreamAuth(deps.box, row));
    authHeaders(auth);
  } catch (err) {
    if (err instanceof McpClientError && (err.kind === 'auth_unsupported' || err.kind === 'auth_token_missing')) {
      return recordNotRun(deps.sql, row, scanOutcomeOf(err.kind)!.reason, err.message);
    }
    throw err;
  }
  try {
    parseUpstreamUrl(row.server_url);
  } catch (err) {
    if (err instanceof UpstreamForbiddenError) return recordNotRun(deps.sql, row, 'upstream_url_forbidden', err.message);
    throw err;
  }
  return auth;
}

interface StoredTool {
  id: string;
  name: string;
  description: string | null;
  current_fingerprint: string;
  approved_hash: string | null;
  present: boolean;
}

/** An admitted tool this scan found different from what the last scan and its admission saw: the rug pull, told once per change. */
const changedSinceAdmission = (before: StoredTool, fingerprint: string): boolean =>
  before.approved_hash !== null && fingerprint !== before.approved_hash && fingerprint !== before.current_fingerprint;

/** Step 3: new tools inserted, known ones updated (a changed one keeps its admission record, so it reads as changed), vanished ones marked. */
async function recordTools(
  tx: Tx,
  row: ServerRow,
  result: ScanResult,
): Promise<{ toolsNew: number; toolsVanished: number; suspects: number }> {
  const stored = await tx<
    StoredTool[]
  >`select id, name, description, current_fingerprint, approved_hash, present from mcp_tools where server_id = ${row.id} for update`;
  const byName = new Map(stored.map((t) => [t.name, t]));
  const others = await tx<{ name: string }[]>`
    select distinct t.name from mcp_tools t where t.project_id = ${row.project_id} and t.server_id <> ${row.id} and t.present`;
  const otherNames = new Set(others.map((o) => o.name));
  let toolsNew = 0;
  let suspects = 0;
  const seen = new Set<string>();
  for (const tool of result.tools) {
    if (seen.has(tool.name)) continue; // a server listing one name twice: the first wins
    seen.add(tool.name);
    const before = byName.get(tool.name);
    const cls = classifyTool(tool);
    const findings = poisoningFindings(tool, {
      otherServersToolNames: otherNames,
      previousDescription: before ? (before.description ?? '') : null,
    });
    if (findings.length > 0) suspects += 1;
    const values = {
      title: tool.title ?? null,
      description: tool.description ?? null,
      input_schema: tx.json(tool.inputSchema as never),
      output_schema: tool.outputSchema ? tx.json(tool.outputSchema as never) : null,
      annotations: tool.annotations ? tx.json(tool.annotations as never) : null,
      current_fingerprint: toolFingerprint(tool),
      description_hash: sha256(tool.description ?? ''),
      risk_level: cls.risk_level,
      category: cls.category,
      action: cls.action,
      proposed_rule: cls.proposed_rule,
      proposed_rule_source: cls.proposed_rule_source,
      findings: tx.json(findings as never),
    };
    if (before) {
      await tx`update mcp_tools set ${tx(values)}, present = true, last_seen_at = now() where id = ${before.id}`;
      if (changedSinceAdmission(before, values.current_fingerprint))
        await emitEvent(tx, row.project_id, 'mcp.tool.changed', toolChanged(row, before, values.current_fingerprint));
    } else {
      toolsNew += 1;
      await tx`insert into mcp_tools ${tx({ id: createId(), project_id: row.project_id, server_id: row.id, name: tool.name, ...values })}`;
    }
  }
  const vanished = stored.filter((t) => t.present && !seen.has(t.name));
  if (vanished.length > 0) await tx`update mcp_tools set present = false where id in ${tx(vanished.map((t) => t.id))}`;
  return { toolsNew, toolsVanished: vanished.length, suspects };
}

/** Tool rules bound to the server's tools. */
async function policiesBound(tx: Tx, serverId: string): Promise<number> {
  const [row] = await tx<{ n: number }[]>`select count(*)::int as n from mcp_policies where server_id = ${serverId}`;
  return row?.n ?? 0;
}

export type { ScanReply };

/** How a stdio upstream's own errors read as client failures; any other error is the server's answer. */
function stdioFailure(error: RpcError): McpFailureKind {
  if (error.code === STDIO_ERRORS.unavailable || error.code === STDIO_ERRORS.timeout) return 'unreachable';
  if (error.code === STDIO_ERRORS.protocol) return 'invalid_response';
  return 'rpc_error';
}

/** Steps 1 and 2 of a stdio server: this daemon may run it, then its tools over stdio. */
async function readStdioServer(deps: ScanDeps, row: ServerRow): Promise<ScanResult> {
  if (!deps.stdio) return recordNotRun(deps.sql, row, 'mcp_stdio_unavailable', 'this daemon runs no stdio servers');
  if (deps.stdio.sandbox.mode === 'unavailable') return recordNotRun(deps.sql, row, 'mcp_stdio_unavailable', deps.stdio.sandbox.reason);
  let upstream: StdioUpstream;
  try {
    upstream = await deps.stdio.upstream(stdioDefinition(deps.box, row));
  } catch (err) {
    if (err instanceof StdioRefusal) return recordNotRun(deps.sql, row, 'mcp_stdio_command_not_allowed', err.message);
    throw err;
  }
  try {
    return await listTools(upstream, { totalMs: deps.scanTimeoutMs, failureOf: stdioFailure });
  } finally {
    // A per-session server's processes are its sessions': the one the scan started ends with it.
    if (row.process_mode === 'per-session') await deps.stdio.endSession(row.id, null);
  }
}

async function readHttpServer(deps: ScanDeps, row: ServerRow): Promise<ScanResult> {
  const auth = await checkConfiguration(deps, row);
  return scanServer(row.server_url, auth, {
    dispatcher: deps.dispatcher,
    timeoutMs: deps.timeoutMs,
    idleTimeoutMs: deps.idleTimeoutMs,
    callTimeoutMs: deps.scanTimeoutMs,
    totalTimeoutMs: deps.scanTimeoutMs,
    responseLimitBytes: deps.responseLimitBytes,
  });
}

export async function scanMcpServer(deps: ScanDeps, projectId: string, id: string): Promise<ScanReply> {
  const row = await getServerRow(deps.sql, projectId, id);

  let result: ScanResult;
  try {
    result = row.transport === 'stdio' ? await readStdioServer(deps, row) : await readHttpServer(deps, row);
  } catch (err) {
    if (!(err instanceof McpClientError)) throw err;
    const outcome = scanOutcomeOf(err.kind);
    if (!outcome) throw err;
    if (outcome.state === 'not_run') return recordNotRun(deps.sql, row, outcome.reason, err.message);
    await deps.sql.begin(async (tx) => {
      await tx`
        update mcp_servers set scan_state = 'failed', scan_reason = ${outcome.reason}, scan_detail = ${err.message}, is_healthy = false,
          last_scan_attempt_at = now(), updated_at = now()
        where id = ${row.id}`;
      await emitEvent(tx, projectId, 'mcp.scan.failed', scanFailed(row, outcome.reason, err.message));
    });
    return { scanned: false, reason: outcome.reason, detail: err.message, target: row.server_url, server_status: row.status };
  }

  return deps.sql.begin(async (tx) => {
    const current = await getServerRow(tx, projectId, id, true); // deleted meanwhile -> 404
    const counts = await recordTools(tx, current, result);
    const stored = {
      format: SCAN_FORMAT,
      era: result.era,
      protocol_version: result.protocolVersion,
      server_info: result.serverInfo,
      tools: result.tools.map((t: McpTool) => ({ name: t.name, fingerprint: toolFingerprint(t) })),
    };
    await tx`
      update mcp_servers set scan_state = 'succeeded', scan_reason = null, scan_detail = null, is_healthy = true,
        scan_result = ${tx.json(stored as never)}, last_scan_at = now(), last_scan_attempt_at = now(), updated_at = now()
      where id = ${id}`;
    const after = await getServerRow(tx, projectId, id);
    return {
      scanned: true,
      tool_count: after.tool_count ?? 0,
      tools_new: counts.toolsNew,
      tools_vanished: counts.toolsVanished,
      poisoning_suspects: counts.suspects,
      policies_bound: await policiesBound(tx, id),
      tools_unreleased: after.tools_unreleased ?? 0,
      server_status: after.status,
    };
  });
}
