// An answer written into an event stream that is already open (wait mode, approval-wait.ts): the
// relay and the gateway session write a whole HTTP answer (writeHead, write, end), but the client
// already has its 200 and event-stream headers. This stands in for the ServerResponse they write
// to, and turns what they write into events of the open stream:
//   - an event-stream answer is passed on as it comes (its events follow the wait's);
//   - a JSON answer (2xx) becomes one `message` event carrying it;
//   - anything else (an HTTP refusal the transport would pass through, an empty body) becomes a
//     -32006 event for the request, since the status line can no longer say it.
// It implements exactly what forward.ts, gateway-session.ts and upstream-failure.ts use of a
// ServerResponse: writeHead, flushHeaders, write, end, destroy, headersSent, writableFinished and
// the close and drain events (those of the real response).
import type { ServerResponse } from 'node:http';
import { formatSseEvent } from '../client/sse.js';
import { rpcError, type RpcId } from './rpc.js';

type Chunk = string | Buffer | Uint8Array;

export class OpenStreamAnswer {
  private started = false;
  private status = 200;
  private eventStream = false;
  private readonly buffered: Buffer[] = [];

  constructor(
    private readonly res: ServerResponse,
    private readonly rpcId: RpcId,
  ) {}

  /** What the writers take it for. */
  asResponse(): ServerResponse {
    return this as unknown as ServerResponse;
  }

  get headersSent(): boolean {
    return this.started;
  }

  get writableFinished(): boolean {
    return this.res.writableFinished;
  }

  writeHead(status: number, headers: Record<string, string | number> = {}): this {
    this.started = true;
    this.status = status;
    const type = Object.entries(headers).find(([k]) => k.toLowerCase() === 'content-type')?.[1];
    this.eventStream =
      String(type ?? '')
        .split(';')[0]!
        .trim()
        .toLowerCase() === 'text/event-stream';
    return this;
  }

  flushHeaders(): void {}

  write(chunk: Chunk): boolean {
    if (this.eventStream) return this.res.write(chunk);
    this.buffered.push(Buffer.from(chunk));
    return true;
  }

  end(chunk?: Chunk): this {
    if (chunk !== undefined) this.write(chunk);
    if (!this.eventStream) this.res.write(this.asEvent());
    this.res.end();
    return this;
  }

  destroy(): void {
    this.res.destroy();
  }

  on(event: string, listener: (...args: unknown[]) => void): this {
    this.res.on(event, listener);
    return this;
  }

  once(event: string, listener: (...args: unknown[]) => void): this {
    this.res.once(event, listener);
    return this;
  }

  off(event: string, listener: (...args: unknown[]) => void): this {
    this.res.off(event, listener);
    return this;
  }

  /** The whole non-stream answer as one event. */
  private asEvent(): string {
    const text = Buffer.concat(this.buffered).toString('utf8');
    if (this.status >= 200 && this.status < 300 && text !== '') {
      try {
        JSON.parse(text);
        return formatSseEvent({ type: 'message', data: text });
      } catch {
        /* not JSON: said below */
      }
    }
    const refusal = rpcError(this.rpcId, 'UPSTREAM_INVALID_RESPONSE', {
      detail: `the upstream server answered HTTP ${this.status}${text === '' ? ' without a body' : ''}`,
      upstream_status: this.status,
    });
    return formatSseEvent({ type: 'message', data: JSON.stringify(refusal.body) });
  }
}
