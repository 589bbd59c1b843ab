// The message text of a held call (-32004) and of a denied one (-32003 APPROVAL_DENIED): what an MCP
// host shows its user, since hosts display `error.message` and not `error.data`. It names the
// approval request, the tool and the server, when the request expires and what happens next; a
// call held anew because the approval it presented could not serve says why.
import { quoted } from '../../../shared/text.js';
import type { Approval } from '../../approvals/store.js';

export type Rejected = 'not_found' | 'arguments_mismatch' | 'used' | 'expired' | 'cancelled';

// Names and ids from the request are quoted (shared/text.ts: short, escaped); the decider's comment is clipped.
const WHY: Readonly<Record<Rejected, (id: string) => string>> = {
  not_found: (id) => `No approval ${id} exists for this call (wrong id, or one for another tool, server, agent or key).`,
  arguments_mismatch: (id) => `Approval ${id} was given for other arguments; an approval covers exactly the arguments it was asked for.`,
  used: (id) => `Approval ${id} was already used: an approval allows one call.`,
  expired: (id) => `Approval ${id} expired before it was used.`,
  cancelled: (id) => `Approval ${id} was cancelled (an emergency stop ended it).`,
};

/** A presented approval id as it came when it is a plain token (the usual case), else quoted. */
const shownId = (id: string) => (/^[\x21-\x7e]{1,64}$/.test(id) && !id.includes('"') ? id : quoted(id));

const clip = (text: string, max: number) => (text.length <= max ? text : `${text.slice(0, max - 1)}…`);

export interface HeldFacts {
  readonly tool: string;
  readonly server: string;
  readonly approvalId: string;
  readonly expiresAt: string;
  /** The request was already open (a repeat before the decision). */
  readonly waiting: boolean;
  /** The approval id the caller presented and why it could not serve, when it could not. */
  readonly rejected?: { readonly id: string; readonly why: Rejected };
}

export function heldMessage(f: HeldFacts): string {
  const what = `The call to tool ${quoted(f.tool)} on server ${quoted(f.server)}`;
  const state = f.waiting
    ? `${what} is still waiting for approval ${f.approvalId} (expires ${f.expiresAt}).`
    : `${what} is held for approval: request ${f.approvalId}, expires ${f.expiresAt}.`;
  const next =
    `An Admin decides with: gatewayctl approvals decide ${f.approvalId} --approve (or --deny). `
    + `Once approved, repeat the same call with the same arguments and the approval id (header X-Gateway-Approval-Id, or argument _gateway_approval_id); it is forwarded once.`;
  return [f.rejected ? WHY[f.rejected.why](shownId(f.rejected.id)) : null, state, next].filter((x) => x !== null).join(' ');
}

/**
 * The same text whether the caller presented the approval id or waited for the decision without
 * one (wait mode): what to do next is true either way.
 */
export function deniedMessage(a: Pick<Approval, 'id' | 'decided_by' | 'comment'>, tool: string): string {
  const by = a.decided_by ? ` by ${clip(a.decided_by, 100)}` : '';
  const comment = a.comment ? ` ("${clip(a.comment, 200)}")` : '';
  return (
    `Approval ${a.id} for this call to tool ${quoted(tool)} was denied${by}${comment}. The call was not forwarded and this approval stays denied; `
    + 'to ask again, make the call without an approval id (a new request is opened).'
  );
}

/** The text of a wait (approval-wait.ts) that ended without a decision to act on. */
export function waitEndedMessage(
  f: Pick<HeldFacts, 'tool' | 'server' | 'approvalId'>,
  end: 'expired' | 'unavailable',
  heldText: string,
): string {
  const what = `the call to tool ${quoted(f.tool)} on server ${quoted(f.server)}`;
  return end === 'expired'
    ? `Approval ${f.approvalId} for ${what} expired while the call waited; nothing was forwarded. Repeat the call to ask again.`
    : `The gateway could not read or apply the decision on approval ${f.approvalId} for ${what}; nothing was forwarded. ${heldText}`;
}
