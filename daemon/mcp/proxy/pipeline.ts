// The MCP proxy's governance pipeline for `tools/call`: the specification's order as an array, the
// first refusing stage answering. Every stage is pure over the context load.ts filled in; the
// runner and the verdict type are verify's too (daemon/pipeline/).
//
//   agent      the named agent may act (AGENT_EMERGENCY_STOP and the other lifecycle refusals, -32003)
//   server     the server is ACTIVE (PENDING_APPROVAL -32002, BLOCKED -32001)
//   admission  the tool is admitted and unchanged (-32002: APPROVED_FINGERPRINT_MISMATCH,
//              TOOL_NOT_RELEASED, TOOL_POISONING_SUSPECTED)
//   rule       the effective rule, strictest wins (DENY -32003 TOOL_DENIED)
//   content    the content policies' detectors over the arguments (a secret: -32003 CONTENT_BLOCKED;
//              a detector that cannot run: -32003 CONTENT_CHECK_FAILED; REDACT masks what is forwarded)
//   approval   REQUIRE_APPROVAL needs an approval for exactly this call (held -32004 with a new
//              request; too many pending for the agent -32005)
//   sign-in    the server's own sign-in can be attached (-32008, HTTP 403)
//
// Passing all of them, the call is recorded (durably) and then forwarded. Every other method runs
// the gates (agent, server, sign-in) and the content of its params (stages/content.ts
// requestContentStage: the argument policies over the uri of resources/read, the arguments of
// prompts/get, the values of completion/complete, ...): no rule is evaluated for it.
import { admissionStage } from './stages/admitted-tool.js';
import { agentStage } from './stages/agent.js';
import { approvalStage } from './stages/approval.js';
import { contentStage, requestContentStage } from './stages/content.js';
import { ruleStage } from './stages/rule.js';
import { serverStage } from './stages/server.js';
import { signInStage } from './stages/sign-in.js';
import type { Outcome } from '../../pipeline/runner.js';
import type { CallState, Refusal, Stage } from './stages/types.js';

export { runStages } from '../../pipeline/runner.js';

export const TOOL_CALL_STAGES: readonly Stage[] = Object.freeze([
  agentStage,
  serverStage,
  admissionStage,
  ruleStage,
  contentStage,
  approvalStage,
  signInStage,
]);

/** What a method other than tools/call must pass before it is forwarded without a rule. */
export const PASSTHROUGH_STAGES: readonly Stage[] = Object.freeze([agentStage, serverStage, requestContentStage, signInStage]);

export type Decision = Outcome<CallState, Refusal>;
