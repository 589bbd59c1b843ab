// Step `read`: what the tools/call asks, checked before anything is loaded (-32602 otherwise, no
// trace: nothing was decided). `_gateway_approval_id` (or the header X-Gateway-Approval-Id) is taken
// out of the arguments, the rest is what is hashed and forwarded; X-Gateway-Approval-Wait is read.
import type { Reply } from '../../../http/types.js';
import { requestedWait } from '../approval-wait.js';
import { splitArguments } from '../canonical.js';
import { header } from '../headers.js';
import { rpcError } from '../rpc.js';
import type { Step } from './journey.js';

const APPROVAL_ID = /^[\x21-\x7e]{1,100}$/;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function invalidParams(id: string | number, detail: string): Reply {
  const reply = rpcError(id, 'INVALID_PARAMS', { detail });
  return { status: reply.status, body: reply.body };
}

/** The members of a tools/call's params beside name and arguments (`_meta`, ...), inspected as arguments are. */
export function otherParamsOf(params: Record<string, unknown>): Record<string, unknown> {
  const { name: _name, arguments: _arguments, ...other } = params;
  return other;
}

export const readStep: Step = {
  name: 'read',
  run(j) {
    const { r, msg } = j.call;
    const params = msg.params ?? {};
    if (typeof params.name !== 'string' || params.name === '' || params.name.length > 500 || params.name.includes('\u0000'))
      return invalidParams(msg.id, 'params.name must be the tool name');
    if (params.arguments !== undefined && !isObject(params.arguments)) return invalidParams(msg.id, 'params.arguments must be an object');
    const split = splitArguments(params.arguments as Record<string, unknown> | undefined);
    if ('invalid' in split) return invalidParams(msg.id, split.invalid);
    const fromHeader = header(r.req.headers, 'x-gateway-approval-id');
    if (fromHeader !== undefined && !APPROVAL_ID.test(fromHeader))
      return invalidParams(msg.id, 'X-Gateway-Approval-Id must be an approval id');
    if (fromHeader !== undefined && split.approvalId !== undefined && fromHeader !== split.approvalId)
      return invalidParams(msg.id, 'X-Gateway-Approval-Id and arguments._gateway_approval_id name different approvals');
    const wait = requestedWait(r.req.headers);
    if (typeof wait === 'object') return invalidParams(msg.id, wait.invalid);
    j.input = {
      params,
      name: params.name,
      forwarded: split.forwarded,
      otherParams: otherParamsOf(params),
      approvalId: fromHeader ?? split.approvalId ?? null,
      wait,
    };
    return null;
  },
};
