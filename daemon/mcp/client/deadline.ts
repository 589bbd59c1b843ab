// The time limits of one upstream exchange, as one AbortSignal for undici:
//   - response headers: undici's headersTimeout, GATEWAY_UPSTREAM_TIMEOUT_SECONDS (see headersWaitMs);
//   - idle: started when the headers arrive and restarted on every complete unit of the answer (one
//     SSE event or comment line; a JSON body must be whole within it), never on bytes alone, so a
//     server that trickles a byte now and then without ever completing an event is cut like a
//     silent one;
//   - total: a ceiling on the whole exchange, however steadily the server sends (keep-alive
//     comments forever).
// Either fires with a DeadlineExceeded (a TimeoutError) whose message names the limit; errors.ts
// reads it as a `timeout` failure with that message as the detail.

/** The abort reason of a time limit of ours. */
export class DeadlineExceeded extends DOMException {
  constructor(message: string) {
    super(message, 'TimeoutError');
  }
}

export interface DeadlineLimits {
  /** Longest wait for the next complete unit of the answer; 0 = none. */
  readonly idleMs: number;
  /** Longest whole exchange; 0 = none. */
  readonly totalMs: number;
  /** Shown in the failure's detail: the settings that set the two limits, what the total bounds. */
  readonly idleSetting?: string;
  readonly totalSetting?: string;
  readonly totalOf?: string;
}

const seconds = (ms: number): string => `${ms % 1000 === 0 ? ms / 1000 : (ms / 1000).toFixed(1)} s`;

export class UpstreamDeadline {
  /** Aborted when a limit passes or any of the parent signals aborts. */
  readonly signal: AbortSignal;
  private readonly own = new AbortController();
  private readonly limits: DeadlineLimits;
  private idleTimer: NodeJS.Timeout | undefined;
  private totalTimer: NodeJS.Timeout | undefined;

  constructor(limits: DeadlineLimits, ...parents: readonly (AbortSignal | undefined)[]) {
    this.limits = limits;
    const signals = [this.own.signal, ...parents.filter((s): s is AbortSignal => s !== undefined)];
    this.signal = signals.length === 1 ? this.own.signal : AbortSignal.any(signals);
    if (limits.totalMs > 0) {
      const what = limits.totalSetting ? ` (${limits.totalSetting})` : '';
      this.totalTimer = setTimeout(
        () => this.fire(`${limits.totalOf ?? 'the upstream exchange'} took longer than ${seconds(limits.totalMs)}${what}`),
        limits.totalMs,
      ).unref();
    }
  }

  /** The headers or a complete unit of the answer arrived: the idle clock starts (again). */
  progress(): void {
    if (this.limits.idleMs <= 0 || this.own.signal.aborted) return;
    if (this.idleTimer !== undefined) {
      this.idleTimer.refresh(); // the same clock started again: no new timer per event
      return;
    }
    const what = this.limits.idleSetting ? ` (${this.limits.idleSetting})` : '';
    this.idleTimer = setTimeout(
      () => this.fire(`no complete answer, SSE event or comment from the upstream within ${seconds(this.limits.idleMs)}${what}`),
      this.limits.idleMs,
    ).unref();
  }

  /** The exchange is over: both clocks stop. */
  dispose(): void {
    clearTimeout(this.idleTimer);
    clearTimeout(this.totalTimer);
  }

  private fire(message: string): void {
    this.dispose();
    this.own.abort(new DeadlineExceeded(message));
  }
}

/** The abort reason's message when it is one of our limits, else undefined. */
export function deadlineDetail(reason: unknown): string | undefined {
  return reason instanceof DeadlineExceeded ? reason.message : undefined;
}

/**
 * How long the response headers may take. A tools/call gets the idle deadline when that is longer:
 * its answer may be the tool's result itself, and a server answering in JSON sends its headers only
 * then. Anything else (handshake, lists, a scan) answers at once or is taken for unreachable.
 */
export function headersWaitMs(method: string | undefined, timeoutMs: number, idleMs: number): number {
  return method === 'tools/call' ? Math.max(timeoutMs, idleMs) : timeoutMs;
}
