// POST /api/v1/verify for gatewayctl. Unlike the other routes, a 403 (BLOCKED) or 202
// (PENDING_APPROVAL) carries a decision rather than an error, and the X-Gateway-* headers say where
// the trace landed and whether the gateway runs degraded, so ApiClient.request does not fit.
import { ApiClient } from './api-client.js';
import type { Connection } from './config.js';
import { GatewayRefusal, GatewayUnavailable } from './errors.js';

const TIMEOUT_MS = 30_000;

/** The verify body; the fields the CLI reads are named, the rest pass through to --json. */
export interface VerifyAnswer {
  decision: string;
  output?: string;
  reason?: string;
  trace_id: string;
  integrity_hash?: string;
  sequence_num?: number;
  enforcement_action?: string;
  action_config?: { redirect_url?: string; message?: string };
  error_class?: string;
  [field: string]: unknown;
}

/** X-Gateway-Status, X-Gateway-Trace-Persisted and X-Gateway-Degraded-Subsystems. */
export interface GovernanceState {
  status: string | null;
  persisted: string | null;
  degraded: string[];
}

export interface VerifyResult {
  answer: VerifyAnswer;
  governance: GovernanceState;
}

function governanceOf(headers: Headers): GovernanceState {
  const degraded = headers.get('x-gateway-degraded-subsystems');
  return {
    status: headers.get('x-gateway-status'),
    persisted: headers.get('x-gateway-trace-persisted'),
    degraded: degraded
      ? degraded
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean)
      : [],
  };
}

function parseJson(text: string): unknown {
  try {
    return text ? JSON.parse(text) : undefined;
  } catch {
    return undefined;
  }
}

function isAnswer(value: unknown): value is VerifyAnswer {
  const v = value as { decision?: unknown; trace_id?: unknown } | null | undefined;
  return typeof v?.decision === 'string' && typeof v.trace_id === 'string';
}

/** Same transport mapping as ApiClient.request: undici puts the reason in `cause.code`. */
function transportReason(err: unknown): string {
  if (err instanceof DOMException && err.name === 'TimeoutError') return `no answer within ${TIMEOUT_MS / 1000}s`;
  const cause = (err as { cause?: { code?: unknown; message?: unknown; cause?: { code?: unknown } } }).cause;
  const code = cause?.code ?? cause?.cause?.code;
  if (typeof code === 'string') return code;
  return typeof cause?.message === 'string' ? cause.message : 'unknown';
}

export class VerifyClient extends ApiClient {
  constructor(
    private readonly target: Connection,
    private readonly agent: string,
  ) {
    super(target, agent);
  }

  async verify(body: unknown): Promise<VerifyResult> {
    let res: Response;
    let text: string;
    try {
      res = await fetch(`${this.target.url}/api/v1/verify`, {
        method: 'POST',
        headers: {
          accept: 'application/json',
          'content-type': 'application/json',
          authorization: `Bearer ${await this.bearer()}`,
          'user-agent': this.agent,
        },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
      text = await res.text();
    } catch (err) {
      throw new GatewayUnavailable(`cannot reach the gateway at ${this.target.url} (${transportReason(err)})`);
    }
    const governance = governanceOf(res.headers);
    const parsed = parseJson(text);
    // 200 PASSED/FLAGGED/MODIFIED, 202 PENDING_APPROVAL, 403 BLOCKED: a decision, not a failure.
    if ((res.ok || res.status === 403) && isAnswer(parsed)) return { answer: parsed, governance };
    const e = (parsed as { error?: { code?: unknown; message?: unknown; request_id?: unknown } } | undefined)?.error;
    if (typeof e?.code === 'string' && typeof e.message === 'string') {
      throw new GatewayRefusal(res.status, e.code, e.message, typeof e.request_id === 'string' ? e.request_id : undefined);
    }
    if (res.status === 503 && governance.status === 'degraded') {
      const what = governance.degraded.length > 0 ? governance.degraded.join(', ') : 'trace_store';
      throw new GatewayUnavailable(
        `the gateway could not record the decision durably (degraded: ${what}); nothing was decided, retry with backoff`,
      );
    }
    if (res.ok) throw new GatewayUnavailable(`${this.target.url} answered ${res.status} without a verify decision; is it a gateway?`);
    if (res.status >= 500) throw new GatewayUnavailable(`${this.target.url} answered HTTP ${res.status}`);
    throw new GatewayRefusal(
      res.status,
      `http_${res.status}`,
      `${this.target.url} answered without a gateway error body; is it a gateway?`,
      undefined,
    );
  }
}
