// The answer of a stdio tools/call whose server asks its caller something meanwhile (sampling,
// elicitation, roots: stdio-upstream.ts relays such a request to the one call in flight). The
// answer becomes an event stream, each server request an event on it after the results inspection
// (results.ts), as on the HTTP path; a request the inspection withholds is answered to the process
// with CONTENT_BLOCKED in the caller's place, so the server never waits for it. The call's own
// answer is the stream's last event. Without a server request the answer stays one JSON body.
import type { ServerResponse } from 'node:http';
import type { Framed } from '../client/framing.js';
import type { RpcAnswer, ServerRequest, ServerRequestRelay } from '../stdio/stdio-upstream.js';
import { DROP } from './relay-request.js';
import { rpcError } from './rpc.js';

/** Where a withheld server request is answered: the process it came from. */
export interface ServerSide {
  answer(id: string | number, answer: RpcAnswer): boolean;
}

export class RelayedAnswer {
  private opened = false;
  private queue: Promise<void> = Promise.resolve();

  constructor(
    private readonly res: ServerResponse,
    private readonly headers: Readonly<Record<string, string>>,
    private readonly inspect: ((framed: Framed) => unknown) | undefined,
  ) {}

  /** True once the answer is an event stream (a server request was passed on). */
  get streaming(): boolean {
    return this.opened;
  }

  /** What stdio-upstream.ts calls with each server request made during this call, answerable by `answerer` only. */
  relay(answerer: string, server: ServerSide): ServerRequestRelay {
    return {
      answerer,
      onServerRequest: (message) => {
        this.queue = this.queue.then(() => this.pass(message, server));
      },
    };
  }

  /** Resolves once every server request relayed so far is on the stream (or answered in the caller's place). */
  settled(): Promise<void> {
    return this.queue;
  }

  /** The call's answer as the stream's last event. */
  end(message: unknown): void {
    if (this.res.destroyed) return;
    this.res.end(event(message));
  }

  private async pass(message: ServerRequest, server: ServerSide): Promise<void> {
    const passed = this.inspect ? await this.inspect({ role: 'request', message }) : message;
    if (passed === DROP) {
      const { error } = rpcError(message.id, 'CONTENT_BLOCKED').body;
      server.answer(message.id, {
        error: { ...error, message: 'The gateway withheld this request: a content policy blocks what it carries.' },
      });
      return;
    }
    if (this.res.destroyed) return;
    if (!this.opened) {
      this.opened = true;
      this.res.writeHead(200, { ...this.headers, 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    }
    this.res.write(event(passed));
  }
}

const event = (message: unknown): string => `event: message\ndata: ${JSON.stringify(message)}\n\n`;
