// Step `refuse`: a refused or held call is answered with its JSON-RPC error, under the governance
// headers of its trace. A held call whose client asked to wait (approval-wait.ts) stays open until
// the decision, then runs the journey again from `load` presenting the approval it waited on, as a
// repeat would (once: a call that waited does not wait again).
import { MCP_RPC_ERRORS } from '../../../../shared/errors.js';
import { databaseDegraded } from '../../../db/availability.js';
import { governanceHeaders } from '../../../http/governance-headers.js';
import { progressTokenOf, waitForDecision, waitSecondsFor } from '../approval-wait.js';
import { heldMessage, type Rejected } from '../held-message.js';
import { rpcError } from '../rpc.js';
import type { CallContext } from '../stages/types.js';
import type { Journey, Recorded, Step } from './journey.js';

/** The -32004 text of a held call (held-message.ts); null for any other refusal. */
function heldText(recorded: Recorded, ctx: CallContext): string | null {
  const { d, approvalId, expiresAt } = recorded;
  const presented = ctx.approvalId; // what the caller sent, when it sent one
  if (d.kind !== 'refuse' || !d.refusal.detail.hold || approvalId === null || expiresAt === null) return null;
  const rejected = d.refusal.detail.data?.approval_rejected as Rejected | undefined;
  return heldMessage({
    tool: ctx.toolName,
    server: ctx.server.name,
    approvalId,
    expiresAt,
    waiting: d.refusal.detail.hold.approvalId !== null,
    ...(rejected && presented !== null ? { rejected: { id: presented, why: rejected } } : {}),
  });
}

/** The governance headers of the recorded call: its trace, and whether it was decided on the state last read (degraded). */
export function recordedHeaders(j: Journey): Record<string, string> {
  return governanceHeaders(j.recorded!.written, databaseDegraded(j.deps.sql));
}

export const refuseStep: Step = {
  name: 'refuse',
  async run(j) {
    const recorded = j.recorded!;
    if (recorded.d.kind !== 'refuse') return null;
    const { deps, call } = j;
    const { r, msg, server } = call;
    const ctx = j.ctx!;
    const { refusal } = recorded.d;
    const headers = recordedHeaders(j);
    const data = {
      ...refusal.detail.data,
      trace_id: recorded.written.id,
      ...(recorded.approvalId ? { approval_id: recorded.approvalId } : {}),
    };
    const message = heldText(recorded, ctx) ?? refusal.detail.message;
    const waitSeconds =
      refusal.detail.hold && j.waitedOn === undefined
        ? await waitSecondsFor(deps.sql, r.principal.projectId, r.req.headers, j.input!.wait)
        : 0;
    if (waitSeconds > 0 && recorded.approvalId !== null && recorded.expiresAt !== null) {
      const waitedOn = recorded.approvalId;
      return waitForDecision(
        deps,
        {
          projectId: r.principal.projectId,
          credentialId: r.principal.credentialId,
          rpcId: msg.id,
          approvalId: waitedOn,
          expiresAt: recorded.expiresAt,
          tool: ctx.toolName,
          server: server.name,
          waitSeconds,
          progressToken: progressTokenOf(j.input!.params),
          held: { reason: refusal.code, data, message: message ?? MCP_RPC_ERRORS[refusal.code].message },
          headers,
        },
        () => j.again!({ waitedOn }),
      );
    }
    const reply = rpcError(msg.id, refusal.code, data, message);
    return { status: reply.status, body: reply.body, headers };
  },
};
