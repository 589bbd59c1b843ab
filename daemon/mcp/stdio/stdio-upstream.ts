// A stdio MCP server as an upstream: one sandboxed process (stdio-process.ts) shared by the callers
// of a server, started on first use and stopped after an idle time. Requests get ids of the
// gateway's own, so two callers' ids never meet in one process, and their answers are matched back;
// a request the server makes while exactly one pending request takes them (a tools/call whose caller
// can be asked, ServerRequestRelay) is relayed to that caller, and only that caller's answer goes
// back under the server's id; everything else the server writes (its other requests and its
// notifications) goes to `onServerMessage`.
// The MCP handshake (2025 era: initialize, notifications/initialized) is made once per process
// start; its result is kept for callers. A process that ends fails what is pending with a JSON-RPC
// error naming why, and the next use starts it again after a backoff that doubles per consecutive
// failure (failures are counted and shown); a request past its deadline fails alone.
import type { SandboxSpec } from './sandbox.js';
import { StdioProcess, type StdioEnd, type StdioProcessOptions } from './stdio-process.js';

export const STDIO_PROTOCOL_VERSION = '2025-11-25';

/** The JSON-RPC error codes a caller gets from the stdio upstream itself. */
export const STDIO_ERRORS = { unavailable: -32003, protocol: -32603, timeout: -32001 } as const;

export interface RpcError {
  code: number;
  message: string;
  data?: unknown;
  /** Set on the upstream's own errors only (a symbol: no answer the server writes can carry it). */
  [STDIO_FAILURE]?: StdioFailure;
}

/** Why the stdio upstream itself answered with an error: the process is not there, it broke the protocol, or it took too long. */
export type StdioFailure = keyof typeof STDIO_ERRORS;

export const STDIO_FAILURE: unique symbol = Symbol('stdio upstream failure');

/** One of the upstream's own errors, marked so the proxy tells it from the server's answer. */
function failure(kind: StdioFailure, message: string): { error: RpcError } {
  return { error: { code: STDIO_ERRORS[kind], message, [STDIO_FAILURE]: kind } };
}

/** Why the stdio upstream failed this answer; null when the answer is the server's own. */
export function stdioFailureOf(answer: RpcAnswer): StdioFailure | null {
  return 'error' in answer ? (answer.error[STDIO_FAILURE] ?? null) : null;
}

export type RpcAnswer = { readonly result: unknown } | { readonly error: RpcError };

export interface StdioUpstreamOptions {
  readonly spec: SandboxSpec;
  readonly process: Omit<StdioProcessOptions, 'spec' | 'onMessage' | 'onEnd'>;
  /** Stop the process after this long with nothing pending. */
  readonly idleMs: number;
  /** First restart delay after a failure; doubles per consecutive failure up to maxBackoffMs. */
  readonly backoffMs: number;
  readonly maxBackoffMs: number;
  readonly clientInfo: { name: string; version: string };
  /** Called once the process has been stopped for its idle time. */
  onIdleStop?(): void;
  onServerMessage(message: Record<string, unknown>): void;
}

export interface StdioState {
  readonly running: boolean;
  /** Consecutive failed runs (exits and protocol errors not asked for by stop()); 0 after a good handshake. */
  readonly failures: number;
  readonly totalFailures: number;
  readonly lastEnd: string | null;
  /** Epoch ms before which no new start is tried. */
  readonly nextStartAt: number;
}

/** A request the server made (sampling, elicitation, roots), under the server's own id. */
export type ServerRequest = Record<string, unknown> & { readonly id: string | number; readonly method: string };

/** Who is asked the server's requests made during one pending request, and who may answer them. */
export interface ServerRequestRelay {
  /** The answering caller (its credential): an answer from anyone else does not reach the process. */
  readonly answerer: string;
  onServerRequest(message: ServerRequest): void;
}

interface Pending {
  resolve(answer: RpcAnswer): void;
  timer: NodeJS.Timeout;
  relay?: ServerRequestRelay;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export function describeEnd(end: StdioEnd): string {
  if (end.kind === 'exited')
    return end.signal ? `the stdio server was ended by ${end.signal}` : `the stdio server exited with code ${end.code}`;
  if (end.kind === 'protocol') return `the stdio server broke the protocol: ${end.detail}`;
  return `the stdio server could not be started (${end.detail})`;
}

export class StdioUpstream {
  private proc: StdioProcess | null = null;
  private ready: Promise<Record<string, unknown>> | null = null;
  private readonly pending = new Map<number, Pending>();
  /** Server requests relayed and not yet answered: who may answer, and the pending request they were made during. */
  private readonly relayed = new Map<string | number, { answerer: string; during: number }>();
  private nextId = 1;
  private stopping = false;
  private idleTimer: NodeJS.Timeout | null = null;
  private failures = 0;
  private totalFailures = 0;
  private lastEnd: string | null = null;
  private nextStartAt = 0;

  constructor(private readonly options: StdioUpstreamOptions) {}

  get state(): StdioState {
    return {
      running: this.proc !== null,
      failures: this.failures,
      totalFailures: this.totalFailures,
      lastEnd: this.lastEnd,
      nextStartAt: this.nextStartAt,
    };
  }

  /** The server's initialize result, starting the process (and handshaking) when it is not running. */
  async initialized(deadlineMs: number): Promise<Record<string, unknown>> {
    if (!this.ready) this.ready = this.startAndHandshake(deadlineMs);
    return this.ready;
  }

  /** One request to the server; the answer, or an error naming why there is none. */
  async request(method: string, params: unknown, deadlineMs: number, relay?: ServerRequestRelay): Promise<RpcAnswer> {
    try {
      await this.initialized(deadlineMs);
    } catch (err) {
      return failure('unavailable', (err as Error).message);
    }
    return this.send(method, params, deadlineMs, relay);
  }

  /** A notification to the server (nothing comes back). */
  notify(method: string, params?: unknown): boolean {
    return this.proc?.send({ jsonrpc: '2.0', method, ...(params === undefined ? {} : { params }) }) ?? false;
  }

  /** An answer to a request the server made (sampling, roots, elicitation), by the server's own id. */
  answer(id: string | number, answer: RpcAnswer): boolean {
    return this.proc?.send({ jsonrpc: '2.0', id, ...answer }) ?? false;
  }

  /** A caller's answer to a server request relayed to it; false (nothing sent) when it was not relayed to this caller or is answered already. */
  answerRelayed(id: string | number, answer: RpcAnswer, answerer: string): boolean {
    const entry = this.relayed.get(id);
    if (!entry || entry.answerer !== answerer) return false;
    this.relayed.delete(id);
    return this.answer(id, answer);
  }

  /** Ends the process; what is pending fails. The next use starts it again, without backoff. */
  async stop(): Promise<void> {
    const proc = this.proc;
    if (!proc) return;
    this.stopping = true;
    await proc.stop();
  }

  private async startAndHandshake(deadlineMs: number): Promise<Record<string, unknown>> {
    const wait = this.nextStartAt - Date.now();
    if (wait > deadlineMs) throw new Error(`${this.lastEnd ?? 'the stdio server failed'}; the next start is in ${wait} ms`);
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    this.stopping = false;
    const proc = new StdioProcess({
      ...this.options.process,
      spec: this.options.spec,
      onMessage: (message) => this.onMessage(message),
      onEnd: (end) => this.onEnd(proc, end),
    });
    this.proc = proc;
    proc.start();
    const answer = await this.send(
      'initialize',
      {
        protocolVersion: STDIO_PROTOCOL_VERSION,
        capabilities: { sampling: {}, roots: {}, elicitation: {} },
        clientInfo: this.options.clientInfo,
      },
      deadlineMs,
    );
    if ('error' in answer) {
      await proc.stop();
      throw new Error(`initialize: ${answer.error.message}`);
    }
    if (!isObject(answer.result)) {
      await proc.stop();
      throw new Error('initialize: the stdio server answered without a result object');
    }
    proc.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    this.failures = 0;
    return answer.result;
  }

  private send(method: string, params: unknown, deadlineMs: number, relay?: ServerRequestRelay): Promise<RpcAnswer> {
    const proc = this.proc;
    if (!proc) return Promise.resolve(failure('unavailable', this.lastEnd ?? 'the stdio server is not running'));
    const id = this.nextId++;
    this.holdOpen();
    return new Promise<RpcAnswer>((resolve) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        this.notify('notifications/cancelled', { requestId: id, reason: 'the gateway stopped waiting' });
        resolve(failure('timeout', `the stdio server did not answer ${method} within ${deadlineMs} ms`));
        this.idleLater();
      }, deadlineMs);
      this.pending.set(id, {
        timer,
        ...(relay ? { relay } : {}),
        resolve: (answer) => {
          clearTimeout(timer);
          resolve(answer);
          this.idleLater();
        },
      });
      if (!proc.send({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) }))
        this.settle(id, failure('unavailable', this.lastEnd ?? 'the stdio server is not running'));
    });
  }

  private settle(id: number, answer: RpcAnswer): void {
    const entry = this.pending.get(id);
    if (!entry) return;
    this.pending.delete(id);
    for (const [serverId, r] of this.relayed) if (r.during === id) this.relayed.delete(serverId);
    entry.resolve(answer);
  }

  private onMessage(message: unknown): void {
    if (!isObject(message)) {
      // A batch: its members one by one, as if written on their own lines.
      if (Array.isArray(message)) for (const m of message) this.onMessage(m);
      return;
    }
    const isAnswer = !('method' in message) && ('result' in message || 'error' in message);
    if (isAnswer && typeof message.id === 'number' && this.pending.has(message.id)) {
      const answer: RpcAnswer =
        'error' in message
          ? {
              error: isObject(message.error)
                ? (message.error as unknown as RpcError)
                : failure('protocol', 'the stdio server answered with a malformed error').error,
            }
          : { result: message.result };
      this.settle(message.id, answer);
      return;
    }
    if (isAnswer) return; // an answer to nothing pending (late, after a deadline): dropped
    if (!this.relayToCaller(message)) this.options.onServerMessage(message);
  }

  /** A server request goes to the caller of the one pending request that takes them; with none, or several (whose?), it is not relayed. */
  private relayToCaller(message: Record<string, unknown>): boolean {
    const { id, method } = message;
    if (typeof method !== 'string' || (typeof id !== 'string' && typeof id !== 'number')) return false;
    const takers = [...this.pending].filter(([, p]) => p.relay !== undefined);
    if (takers.length !== 1 || this.relayed.has(id)) return false;
    const [during, { relay }] = takers[0]!;
    this.relayed.set(id, { answerer: relay!.answerer, during });
    relay!.onServerRequest(message as ServerRequest);
    return true;
  }

  private onEnd(proc: StdioProcess, end: StdioEnd): void {
    if (this.proc !== proc) return;
    this.proc = null;
    this.ready = null;
    this.lastEnd = describeEnd(end);
    if (!this.stopping) {
      this.failures += 1;
      this.totalFailures += 1;
      this.nextStartAt = Date.now() + Math.min(this.options.maxBackoffMs, this.options.backoffMs * 2 ** (this.failures - 1));
    }
    this.stopping = false;
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = null;
    const kind: StdioFailure = end.kind === 'protocol' ? 'protocol' : 'unavailable';
    for (const id of [...this.pending.keys()]) this.settle(id, failure(kind, this.lastEnd));
    if (end.kind !== 'exited') void proc.stop();
  }

  private holdOpen(): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = null;
  }

  private idleLater(): void {
    if (this.pending.size > 0 || !this.proc) return;
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => {
      this.idleTimer = null;
      if (this.pending.size === 0) void this.stop().then(() => this.options.onIdleStop?.());
    }, this.options.idleMs);
    this.idleTimer.unref();
  }
}
