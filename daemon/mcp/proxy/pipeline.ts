// The journey of a `tools/call` through the proxy, as http-proxy-3's WEB_PASSES: TOOL_CALL_STEPS,
// each a file of steps/, the forward itself last.
//
//   read     the call's name, arguments, presented approval and asked wait (-32602 otherwise)
//   load     everything the decision reads, through the state cache (load.ts): server, agent, tool,
//            rules, content policies, the presented approval, the credential's open approvals when
//            the call may be held anew; the content inspection of the arguments, made ahead in turns
//   decide   TOOL_CALL_STAGES below, pure over what `load` read, run once
//   record   the decision trace made durable (with the approval spent or created in the same
//            transaction) before anything leaves; 503 and nothing forwarded when no store takes it
//   refuse   a refused or held call answered (wait mode: held open until a person decides, then
//            the same steps again from `load`)
//   forward  upstream through the caller's session or a gateway session; its answer passes through
//            `inspectResult` (results policies) and `recordOutcome` (mcp_call_outcomes, MCP_CONTENT)
//
// The governance pipeline the `decide` step runs: the specification's order as an array, the
// first refusing stage answering. Every stage is pure over the context `load` filled in; the
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
import type { Stage } from './stages/types.js';
import { decideStep } from './steps/decide.js';
import { forwardStep } from './steps/forward.js';
import type { Step } from './steps/journey.js';
import { loadStep } from './steps/load.js';
import { readStep } from './steps/read.js';
import { recordStep } from './steps/record.js';
import { refuseStep } from './steps/refuse.js';

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

export type { Decision } from './stages/types.js';

/** One tools/call, from its request to its upstream's answer (tool-call.ts runs it). */
export const TOOL_CALL_STEPS: readonly Step[] = Object.freeze([
  readStep,
  loadStep,
  decideStep(TOOL_CALL_STAGES),
  recordStep,
  refuseStep,
  forwardStep,
]);
