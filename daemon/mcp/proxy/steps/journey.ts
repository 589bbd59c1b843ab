// What one tools/call carries from step to step, and the runner of the steps (pipeline.ts
// TOOL_CALL_STEPS). A step reads what the steps before it put on the journey and adds its own; one
// that answers (a refusal, the forwarded answer) ends the journey. Wait mode and a lost race for an
// approval run the same steps again from `load`, with what `read` found kept: nothing else re-enters.
import type { Deps } from '../../../deps.js';
import type { Reply, RouteRequest } from '../../../http/types.js';
import type { PersistOutcome } from '../../../ledger/dlq-outcome.js';
import type { UpstreamAuth } from '../../client/upstream-auth.js';
import type { ServerRow } from '../../servers/server-rows.js';
import type { StdioServers } from '../../stdio/stdio-servers.js';
import type { OutcomeRecorder } from '../outcomes.js';
import type { CallFacts } from '../record.js';
import type { RpcMessage } from '../rpc.js';
import type { CallAgent, CallContext, Decision } from '../stages/types.js';

export interface ProxyDeps extends Deps {
  readonly outcomes: OutcomeRecorder;
  /** The daemon's stdio servers (transport 'stdio' is forwarded to them); absent where it runs none. */
  readonly stdio?: StdioServers;
}

export interface CallRequest {
  readonly r: RouteRequest;
  readonly server: ServerRow;
  readonly msg: RpcMessage & { kind: 'request' };
  readonly agent: CallAgent | null;
  readonly auth: UpstreamAuth | null;
  readonly environment: string;
  /** The caller speaks MCP itself (its own session or protocol headers): relay; else a gateway session. */
  readonly ownSession: boolean;
  /** The caller's Mcp-Session-Id, already checked to be bound to its credential. */
  readonly sessionId: string | undefined;
}

/** What `read` takes from the request: the call's name and arguments, the approval it presents, the wait it asks for. */
export interface CallInput {
  readonly params: Record<string, unknown>;
  readonly name: string;
  /** The arguments as they would be forwarded (without _gateway_approval_id). */
  readonly forwarded: Record<string, unknown> | undefined;
  /** The members of params beside name and arguments (`_meta`, ...). */
  readonly otherParams: Record<string, unknown>;
  readonly approvalId: string | null;
  /** The seconds the client asked to wait for a decision (X-Gateway-Approval-Wait), undefined when it asked nothing. */
  readonly wait: number | undefined;
}

/** What `record` made durable: the decision as recorded, its trace, the approval held or reused. */
export interface Recorded {
  readonly d: Decision;
  readonly written: PersistOutcome & { readonly id: string };
  readonly approvalId: string | null;
  /** When the request a held call is waiting on expires. */
  readonly expiresAt: string | null;
}

export interface Journey {
  readonly deps: ProxyDeps;
  readonly call: CallRequest;
  /** Set when the journey runs again after a wait: the approval it waited on (never waits twice). */
  readonly waitedOn?: string;
  /** Set when the journey runs again because a concurrent repeat spent its approval first (at most once). */
  readonly raced?: boolean;
  input?: CallInput;
  ctx?: CallContext;
  facts?: CallFacts;
  decision?: Decision;
  recorded?: Recorded;
  /** The same steps again from `load` (the runner sets it). */
  again?: (changes: { waitedOn?: string; raced?: boolean }) => Promise<Reply>;
}

export interface Step {
  readonly name: string;
  /** Adds to the journey; a Reply ends it. */
  run(j: Journey): Promise<Reply | null> | Reply | null;
}

/** Runs `steps` in order until one answers; `again` runs them anew from `load` with what `read` found. */
export async function runJourney(steps: readonly Step[], j: Journey): Promise<Reply> {
  j.again = (changes) => {
    const from = steps.findIndex((s) => s.name === 'load');
    return runJourney(steps.slice(from), {
      deps: j.deps,
      call: j.call,
      input: j.input,
      ...(j.waitedOn ? { waitedOn: j.waitedOn } : {}),
      ...changes,
    });
  };
  for (const step of steps) {
    const reply = await step.run(j);
    if (reply !== null) return reply;
  }
  throw new Error(`the tools/call journey ended without an answer after ${steps.at(-1)?.name}`);
}
