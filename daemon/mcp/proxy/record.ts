// The trace of a tools/call decision (traceType MCP_TOOL_CALL), built as data. Every decision is
// one: refusals BLOCKED, held calls PENDING_APPROVAL, forwarded calls PASSED, MODIFIED when a
// content policy masked arguments before forwarding, or FLAGGED when the rule is LOG_ONLY or a
// content policy flagged the arguments (forwarded, but recorded with the emphasis a reviewer filters on).
// The trace is made durable before anything is forwarded, so its content says what was decided and
// why; what happened upstream (status, latency) is known only afterwards and goes to
// mcp_call_outcomes under the trace's id (outcomes.ts), keeping the decision record immutable.
//
// Content: tool, server, agent, the credential that made the call (its id: what an approval is
// bound to), the canonical argument hash, the rule and where it came from, what
// the content policies found in the arguments (`content_findings`: types, JSON paths, scores and
// effects, never values), the outcome (`forwarded`, or the refusal's code) with its JSON-RPC code, the stage that decided,
// the approval involved, and upstream_latency_ms (null here: see mcp_call_outcomes). Arguments are
// kept only on held calls, where the person deciding the approval needs to see them; `display`
// holds what left the gateway (the forwarded name and arguments) on forwarded calls. Both are
// kept masked (traces/at-rest.ts); the original arguments only sealed, at audit level `full`.
import { canonicalJson } from '../../../shared/canonical-json.js';
import { MCP_RPC_ERRORS } from '../../../shared/errors.js';
import type { SealedRaw } from '../../crypto/raw-keys.js';
import type { TraceInput } from '../../ledger/streams.js';
import { DisplayMask } from '../../traces/at-rest.js';
import type { ContentFinding } from '../content/inspect.js';
import type { CallContext, Decision } from './stages/types.js';

export const TRACE_TYPE = 'MCP_TOOL_CALL';
export const ACTION_NAME = 'mcp.tools.call';

export interface CallFacts {
  readonly traceId: string;
  readonly requestId: string;
  readonly environment: string;
  readonly rpcId: string | number;
  /** The agent id the caller named, kept when it named no registered agent (anonymous). */
  readonly requestedAgentId: string | null;
  readonly arguments: Record<string, unknown> | undefined;
  /** `session`: the caller's own MCP session passed through; `gateway`: the gateway's one-off session. */
  readonly mode: 'session' | 'gateway';
  /** The call's name and arguments sealed with the project's data key (audit level full only). */
  readonly raw?: SealedRaw;
}

/** PostgreSQL text cannot hold NUL: stored copies show it as U+FFFD (the hash covers the original). */
function storable(value: unknown): unknown {
  if (typeof value === 'string') return value.replaceAll('\u0000', '\ufffd');
  if (Array.isArray(value)) return value.map(storable);
  if (typeof value === 'object' && value !== null)
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [storable(k) as string, storable(v)]));
  return value;
}

export function decisionOf(d: Decision): 'PASSED' | 'FLAGGED' | 'MODIFIED' | 'PENDING_APPROVAL' | 'BLOCKED' {
  if (d.kind === 'refuse') return d.refusal.detail.hold ? 'PENDING_APPROVAL' : 'BLOCKED';
  if (d.state.forwardArguments !== undefined || d.state.forwardParams !== undefined) return 'MODIFIED';
  return d.state.effective?.rule === 'LOG_ONLY' || (d.state.argumentFindings?.length ?? 0) > 0 ? 'FLAGGED' : 'PASSED';
}

/** What the content stage found in the arguments: with its refusal, or passed on to a later stage. */
export function argumentFindings(d: Decision): readonly ContentFinding[] {
  return (d.kind === 'refuse' ? d.refusal.detail.findings : undefined) ?? d.state.argumentFindings ?? [];
}

function reasonText(d: Decision, ctx: CallContext): string {
  if (d.kind === 'refuse') return d.refusal.detail.message ?? MCP_RPC_ERRORS[d.refusal.code].message;
  const rule = d.state.effective?.rule ?? 'ALLOW';
  if (d.state.useApproval) return `${ctx.toolName} forwarded under approval ${d.state.useApproval}`;
  if (d.state.forwardArguments !== undefined) return `${ctx.toolName} forwarded with content masked by a content policy`;
  if ((d.state.argumentFindings?.length ?? 0) > 0) return `${ctx.toolName} forwarded; a content policy flagged its arguments`;
  return rule === 'LOG_ONLY'
    ? `${ctx.toolName} forwarded under a LOG_ONLY rule: flagged for review`
    : `${ctx.toolName} forwarded (${rule})`;
}

/** The decision trace; `approvalId` is the request a held call created or reused. */
export function callTrace(ctx: CallContext, d: Decision, facts: CallFacts, approvalId: string | null = null): TraceInput {
  const forwarded = d.kind === 'forward';
  const effective = d.state.effective ?? null;
  const held = d.kind === 'refuse' && d.refusal.detail.hold !== undefined;
  const usedApproval = forwarded ? (d.state.useApproval ?? null) : null;
  const mask = new DisplayMask();
  return {
    id: facts.traceId,
    traceType: TRACE_TYPE,
    decision: decisionOf(d),
    reason: storable(reasonText(d, ctx)) as string,
    actionName: ACTION_NAME,
    environment: facts.environment,
    agentId: ctx.agent?.id ?? null,
    content: {
      display: forwarded
        ? mask.text(canonicalJson({ name: ctx.toolName, arguments: (forwarded && d.state.forwardArguments) || facts.arguments || {} }))
        : '',
      metadata: {
        server_id: ctx.server.id,
        tool_name: storable(ctx.toolName),
        ...(ctx.agent === null && facts.requestedAgentId !== null ? { requested_agent_id: mask.text(facts.requestedAgentId) } : {}),
      },
      tool: storable(ctx.toolName),
      tool_id: ctx.tool?.id ?? null,
      server_id: ctx.server.id,
      server_name: ctx.server.name,
      agent_id: ctx.agent?.id ?? null,
      credential_id: ctx.credentialId,
      // Who the identity provider says made the call, when an access token did (docs/identity.md).
      ...(ctx.subject ? { subject: storable({ issuer: ctx.subject.issuer, sub: ctx.subject.sub, name: ctx.subject.name }) } : {}),
      arguments_hash: ctx.argumentsHash,
      rule: effective?.rule ?? (d.kind === 'refuse' && d.refusal.detail.data?.rule === 'DENY' ? 'DENY' : null),
      rule_source: effective?.source ?? (d.kind === 'refuse' ? (d.refusal.detail.data?.rule_source ?? null) : null),
      content_findings: { arguments: storable(argumentFindings(d)) },
      stage: d.kind === 'refuse' ? d.stage : null,
      outcome: d.kind === 'refuse' ? d.refusal.code : 'forwarded',
      rpc_code: d.kind === 'refuse' ? MCP_RPC_ERRORS[d.refusal.code].rpc : null,
      approval_id: approvalId ?? usedApproval ?? (d.kind === 'refuse' ? (d.refusal.detail.data?.approval_id ?? null) : null),
      ...(d.kind === 'refuse' && d.refusal.detail.data?.approval_rejected
        ? { approval_rejected: d.refusal.detail.data.approval_rejected }
        : {}),
      ...(held ? { arguments: storable(mask.value(facts.arguments ?? {})) } : {}),
      upstream_latency_ms: null,
      jsonrpc_id: facts.rpcId,
      mode: facts.mode,
      request_id: facts.requestId,
      ...(facts.raw ? { raw: facts.raw } : {}),
    },
  };
}
