// What the proxy's stages read and return. A stage is a pure function over a CallContext that
// load.ts filled in before the pipeline ran: it does no I/O, so each one is testable on its own.
// A stage returns the one verdict type of both pipelines (daemon/pipeline/verdict.ts): it passes,
// adding what it found to the state the later stages see, or refuses with a reason of
// shared/errors.ts MCP_RPC_ERRORS as its code; a refusal whose detail has `hold` is a call held for approval.
import type { Rule } from '../../../../shared/agent-schemas.js';
import type { McpRpcReason } from '../../../../shared/errors.js';
import type { AgentStatus } from '../../../agents/lifecycle.js';
import type { CapabilityModel } from '../../../agents/capability.js';
import type { ApprovalLimits, OpenCounts } from '../../../approvals/limits.js';
import type { Approval } from '../../../approvals/store.js';
import type { UpstreamAuth } from '../../client/upstream-auth.js';
import type { LoadedContentPolicy } from '../../content/effective.js';
import type { ContentFinding, Inspection } from '../../content/inspect.js';
import type { Effective } from '../../rules/effective-rule.js';
import type { Outcome, Stage as PipelineStage } from '../../../pipeline/runner.js';
import type { Refusal as PipelineRefusal, Verdict } from '../../../pipeline/verdict.js';
import type { Subject } from '../../../../shared/credentials.js';

export interface CallAgent {
  readonly id: string;
  readonly status: AgentStatus;
  readonly capability: CapabilityModel | null;
}

export interface CallTool {
  readonly id: string;
  readonly name: string;
  readonly present: boolean;
  readonly approvedHash: string | null;
  readonly currentFingerprint: string;
  readonly riskLevel: string | null;
  readonly action: string | null;
  readonly findings: readonly string[];
  /** The tool's inputSchema as last scanned (its x-mcp-header declarations map Mcp-Param-* headers). */
  readonly inputSchema?: unknown;
}

export interface CallServer {
  readonly id: string;
  readonly name: string;
  readonly status: 'PENDING_APPROVAL' | 'ACTIVE' | 'BLOCKED';
}

/** Everything the stages may look at, loaded once per call (load.ts). */
export interface CallContext {
  readonly now: Date;
  /** The registered agent named by X-Agent-Id; null when absent or unknown (anonymous). */
  readonly agent: CallAgent | null;
  /** The credential (key or token id) that made the call: what an approval is bound to and counted by. */
  readonly credentialId: string;
  /** The identity provider's subject when an OAuth access token made the call (daemon/identity/). */
  readonly subject?: Subject | null;
  readonly server: CallServer;
  /** The server's sign-in, decrypted; null when it could not even be read. */
  readonly auth: UpstreamAuth | null;
  readonly toolName: string;
  /** The tool of that name on this server; null when the server has none. */
  readonly tool: CallTool | null;
  readonly serverWide: readonly Rule[];
  readonly agentRules: readonly Rule[];
  /** SHA-256 over the RFC 8785 form of the arguments (without _gateway_approval_id). */
  readonly argumentsHash: string;
  /** The arguments as they would be forwarded (without _gateway_approval_id); another method's whole params. */
  readonly arguments: Record<string, unknown> | undefined;
  /** Every other member of a tools/call's params (`_meta`, ...): the upstream reads them too. */
  readonly otherParams?: Record<string, unknown>;
  /** The method of a request other than tools/call (its content is read as arguments are). */
  readonly method?: string;
  /** The content stage's inspection, made ahead in turns (stages/content.ts inspectAhead); absent: the stage makes it. */
  readonly inspection?: Inspection;
  /** The project's content policies (daemon/mcp/content/), configurations parsed. */
  readonly contentPolicies: readonly LoadedContentPolicy[];
  /** The most a detector call may take before the call is refused (fail closed). */
  readonly detectorBudgetMs: number;
  /** The approval id the caller presented, and what the project holds under it. */
  readonly approvalId: string | null;
  readonly approval: Approval | null;
  /** The credential's approval counts (approvals/limits.ts); null until a call is about to be held for a new request. */
  readonly openApprovals: OpenCounts | null;
  readonly approvalLimits: ApprovalLimits;
}

/** What the passing stages found, handed on to the later ones and to forwarding. */
export interface CallState {
  readonly effective?: Effective;
  /** An approved request that authorises exactly this call; spent when the call is forwarded. */
  readonly useApproval?: string;
  /** What the content stage found in the arguments (FLAG and REDACT; a BLOCK refuses). */
  readonly argumentFindings?: readonly ContentFinding[];
  /** The arguments with REDACT findings masked: forwarded instead of the caller's. */
  readonly forwardArguments?: Record<string, unknown>;
  /** The other members of params with REDACT findings masked: forwarded instead of the caller's. */
  readonly forwardParams?: Record<string, unknown>;
  /** The headers that sign in to the upstream server. */
  readonly signIn?: Readonly<Record<string, string>>;
}

export interface RefusalDetail {
  /** Extra fields of error.data (approval_rejected, rule_source, findings, ...). */
  readonly data?: Readonly<Record<string, unknown>>;
  readonly message?: string;
  /** What the content stage found, for the trace (error.data carries only types and paths). */
  readonly findings?: readonly ContentFinding[];
  /** -32004: held for approval; `approvalId` set when an existing open request is reused. */
  readonly hold?: { readonly approvalId: string | null };
}

export interface Refusal extends PipelineRefusal<McpRpcReason, RefusalDetail> {
  readonly detail: RefusalDetail;
}

export type StageVerdict = Verdict<CallState, Refusal>;

export type Stage = PipelineStage<CallContext, CallState, Refusal>;

/** What the stages decided: forward (with what they found), or the first refusal. */
export type Decision = Outcome<CallState, Refusal>;

export const pass = (value: CallState = {}): StageVerdict => ({ ok: true, value });

export const refuse = (reason: McpRpcReason, data?: Record<string, unknown>, message?: string): Refusal => ({
  ok: false,
  code: reason,
  detail: { ...(data ? { data } : {}), ...(message ? { message } : {}) },
});
