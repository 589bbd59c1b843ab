// Wait mode: a held tools/call kept open until a person decides. Without it the proxy
// answers -32004 at once and the client must repeat the call with the approval id; with it, the
// answer is an event stream that stays open while the request waits:
//   1. how long: the header X-Gateway-Approval-Wait (seconds) when the client sends one, else the
//      project's approval_wait_seconds; both at most APPROVAL_WAIT_MAX_SECONDS, and never past the
//      approval's expiry. 0, or a client that does not accept text/event-stream: the immediate -32004;
//   2. while waiting: a progress notification "waiting for approval <id>" every TICK_MS when the
//      call carried a progress token, else a keep-alive comment (so neither side's idle timer fires);
//   3. the decision is read from the database (approvals/wait.ts), woken by the notification any
//      daemon's decision sends; then the call is decided again exactly as a repeat presenting the
//      approval id would be (the caller's `again`): approved, it is forwarded once under that
//      approval and the upstream's answer follows in this stream; denied, -32003 APPROVAL_DENIED;
//      ended by a stop, the stop's refusal; each with its own decision trace. Before that, the
//      caller's key is checked again (project/standing.ts): revoked, or the project stopped, while
//      the call waited: -32003 CREDENTIAL_REVOKED / PROJECT_EMERGENCY_STOP, nothing forwarded;
//   4. expired while waiting: -32004 saying so (no new request is opened for a caller that waited);
//      no decision within the wait: the held call's -32004, the request still open for a repeat;
//   5. the client gone: nothing more; the approval stays open and usable by a repeat.
// The response's headers are the held call's (its trace id); the call's later traces are linked by
// the approval id.
import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import { APPROVAL_WAIT_MAX_SECONDS } from '../../../shared/schemas.js';
import type { Approval } from '../../approvals/store.js';
import { awaitDecision, type WaitEnd } from '../../approvals/wait.js';
import type { Sql } from '../../db/connect.js';
import type { Deps } from '../../deps.js';
import type { Reply } from '../../http/types.js';
import { credentialStanding } from '../../project/standing.js';
import { stateCacheOf } from '../../state-cache/pool-attachment.js';
import { formatSseEvent } from '../client/sse.js';
import { header } from './headers.js';
import { loadApprovalWait } from './load.js';
import { waitEndedMessage } from './held-message.js';
import { OpenStreamAnswer } from './open-stream.js';
import { rpcError, type RpcId } from './rpc.js';
import type { McpRpcReason } from '../../../shared/errors.js';

export const WAIT_HEADER = 'x-gateway-approval-wait';
/** How often a waiting call hears from the gateway. */
export const TICK_MS = 10_000;

/** The seconds the client asked to wait (capped), undefined when it asked nothing, or why the header is invalid. */
export function requestedWait(headers: IncomingHttpHeaders): number | undefined | { invalid: string } {
  const raw = header(headers, WAIT_HEADER);
  if (raw === undefined) return undefined;
  if (!/^\d{1,9}$/.test(raw.trim())) return { invalid: `${WAIT_HEADER} must be a whole number of seconds` };
  return Math.min(Number(raw.trim()), APPROVAL_WAIT_MAX_SECONDS);
}

/** How long a held call waits: the header's seconds, else the project's setting; 0 for a client that takes no event stream. */
export async function waitSecondsFor(
  sql: Sql,
  projectId: string,
  headers: IncomingHttpHeaders,
  asked: number | undefined,
): Promise<number> {
  if (!acceptsEventStream(headers)) return 0;
  return asked ?? (await loadApprovalWait(sql, projectId));
}

/** The call's `_meta.progressToken`, when it sent one. */
export function progressTokenOf(params: Readonly<Record<string, unknown>>): string | number | undefined {
  const meta = params._meta;
  const token =
    typeof meta === 'object' && meta !== null && !Array.isArray(meta) ? (meta as Record<string, unknown>).progressToken : undefined;
  return typeof token === 'string' || typeof token === 'number' ? token : undefined;
}

export function acceptsEventStream(headers: IncomingHttpHeaders): boolean {
  return (header(headers, 'accept') ?? '').split(',').some((part) => part.split(';')[0]!.trim().toLowerCase() === 'text/event-stream');
}

export interface HeldCall {
  readonly projectId: string;
  /** The key that made the call: checked again before the call acts on a decision. */
  readonly credentialId: string;
  readonly rpcId: RpcId;
  readonly approvalId: string;
  readonly expiresAt: string;
  readonly tool: string;
  readonly server: string;
  readonly waitSeconds: number;
  readonly progressToken: string | number | undefined;
  /** The held call's refusal: its reason, data and text, answered when the wait runs out. */
  readonly held: { readonly reason: McpRpcReason; readonly data: Record<string, unknown>; readonly message: string };
  /** The held call's governance headers. */
  readonly headers: Readonly<Record<string, string>>;
}

/** The call decided again with the approval presented, once it is no longer PENDING. */
export type Again = () => Promise<Reply>;

export function waitForDecision(deps: Deps, call: HeldCall, again: Again): Reply {
  return { stream: (res) => streamWait(deps, call, again, res) };
}

async function streamWait(deps: Deps, call: HeldCall, again: Again, res: ServerResponse): Promise<void> {
  const gone = new AbortController();
  res.once('close', () => {
    if (!res.writableFinished) gone.abort();
  });
  res.writeHead(200, { ...call.headers, 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  res.flushHeaders();
  let ticks = 0;
  const tick = () => {
    ticks += 1;
    res.write(
      call.progressToken === undefined
        ? `: waiting for approval ${call.approvalId}\n\n`
        : event({
            jsonrpc: '2.0',
            method: 'notifications/progress',
            params: { progressToken: call.progressToken, progress: ticks, message: `waiting for approval ${call.approvalId}` },
          }),
    );
  };
  tick();
  const timer = setInterval(tick, TICK_MS);
  let end: WaitEnd | { failed: unknown };
  try {
    const until = Math.min(Date.now() + call.waitSeconds * 1000, Date.parse(call.expiresAt));
    end = await awaitDecision(deps.sql, call.projectId, call.approvalId, { until, signal: gone.signal });
  } catch (err) {
    end = { failed: err };
  } finally {
    clearInterval(timer);
  }
  if ('aborted' in end) return; // the approval stays open for a repeat
  if ('timeout' in end) return finish(res, refusal(call, call.held.message));
  if ('failed' in end) return failed(deps, res, call, end.failed);
  if (end.decided?.status === 'EXPIRED') return finish(res, refusal(call, waitEndedMessage(call, 'expired', call.held.message)));
  await answerDecided(deps, res, call, end.decided, again);
}

/** The call decided again now that the approval is decided, its answer written into the open stream. */
async function answerDecided(deps: Deps, res: ServerResponse, call: HeldCall, decided: Approval | null, again: Again): Promise<void> {
  // A stop ends approvals in its own transaction: read the project's state afresh, not as cached.
  if (decided?.status === 'CANCELLED') stateCacheOf(deps.sql)?.changed(call.projectId, null);
  let reply: Reply;
  try {
    const standing = await credentialStanding(deps.sql, call.credentialId, call.projectId);
    if (standing !== 'ok') {
      const reason = standing === 'stopped' ? 'PROJECT_EMERGENCY_STOP' : 'CREDENTIAL_REVOKED';
      return finish(res, rpcError(call.rpcId, reason, { approval_id: call.approvalId }).body);
    }
    reply = await again();
  } catch (err) {
    return failed(deps, res, call, err);
  }
  if ('stream' in reply) return reply.stream(new OpenStreamAnswer(res, call.rpcId).asResponse());
  finish(res, reply.body);
}

function failed(deps: Deps, res: ServerResponse, call: HeldCall, err: unknown): void {
  deps.log.warn({ err, approval_id: call.approvalId }, 'a held call waiting for its approval could not learn or apply the decision');
  finish(res, refusal(call, waitEndedMessage(call, 'unavailable', call.held.message)));
}

function refusal(call: HeldCall, message: string): unknown {
  return rpcError(call.rpcId, call.held.reason, call.held.data, message).body;
}

function event(message: unknown): string {
  return formatSseEvent({ type: 'message', data: JSON.stringify(message) });
}

function finish(res: ServerResponse, message: unknown): void {
  if (res.destroyed) return;
  res.end(event(message));
}
