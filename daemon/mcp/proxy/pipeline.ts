// The MCP proxy's governance pipeline for `tools/call`: the specification's order as an array, the
// first refusing stage answering. Every stage is pure over the context load.ts filled in.
//
//   agent      the named agent may act (AGENT_EMERGENCY_STOP and the other lifecycle refusals, -32003)
//   server     the server is ACTIVE (PENDING_APPROVAL -32002, BLOCKED -32001)
//   admission  the tool is admitted and unchanged (-32002: APPROVED_FINGERPRINT_MISMATCH,
//              TOOL_NOT_RELEASED, TOOL_POISONING_SUSPECTED)
//   rule       the effective rule, strictest wins (DENY -32003 TOOL_DENIED)
//   approval   REQUIRE_APPROVAL needs an approval for exactly this call (held -32004 with a new
//              request; too many pending for the agent -32005)
//   sign-in    the server's own sign-in can be attached (-32008, HTTP 403)
//
// Passing all of them, the call is recorded (durably) and then forwarded. Every other method runs
// the gates only (agent, server, sign-in): no rule is evaluated for it.
import { admissionStage } from './stages/admission.js';
import { agentStage } from './stages/agent.js';
import { approvalStage } from './stages/approval.js';
import { ruleStage } from './stages/rule.js';
import { serverStage } from './stages/server.js';
import { signInStage } from './stages/sign-in.js';
import type { CallContext, CallState, Refusal, Stage } from './stages/types.js';

export const TOOL_CALL_STAGES: readonly Stage[] = Object.freeze([agentStage, serverStage, admissionStage, ruleStage, approvalStage, signInStage]);

/** What a method other than tools/call must pass before it is forwarded unevaluated. */
export const PASSTHROUGH_STAGES: readonly Stage[] = Object.freeze([agentStage, serverStage, signInStage]);

export type Decision =
  | { readonly kind: 'forward'; readonly state: CallState }
  | { readonly kind: 'refuse'; readonly stage: string; readonly refusal: Refusal; readonly state: CallState };

/** Runs `stages` in order; the first refusal answers, with the state the earlier stages built. */
export function runStages(stages: readonly Stage[], ctx: CallContext): Decision {
  let state: CallState = {};
  for (const stage of stages) {
    const verdict = stage.run(ctx, state);
    if (!verdict.ok) return { kind: 'refuse', stage: stage.name, refusal: verdict, state };
    state = { ...state, ...verdict.value };
  }
  return { kind: 'forward', state };
}
