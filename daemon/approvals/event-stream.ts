// GET /api/v1/approvals/events: a server-sent event stream that tells a client (the console's
// inbox) when the project's approval requests changed, so that it reads them again at once rather
// than on its next poll. An event carries no approval: it only wakes, as the state cache's
// notification it comes from does (an insert or a status change of `approvals`, from whichever
// daemon wrote it, migrations 00018 and 00026); the list the client reads is the truth.
//
//   retry: 3000 / event: ready      when the stream opens (a client reads the list then: whatever
//                                   changed while it was away is in it)
//   event: approvals                after a change (several within COALESCE_MS make one event)
//   : keep-alive                    every HEARTBEAT_MS, so proxies keep an idle stream open
//
// A stream ends after `lifetimeMs`: the client reconnects, and so is authenticated again (a revoked
// key or an ended console session stops getting events within that time). At most `maxStreams`
// are open per daemon (more: 503 event_streams_full). A client that does not read is cut off
// rather than buffered for. close() ends every stream, so shutdown does not wait for them.
import type { ServerResponse } from 'node:http';
import { GatewayError } from '../../shared/errors.js';
import type { Sql } from '../db/connect.js';
import { stateCacheOf } from '../state-cache/pool-attachment.js';

const HEARTBEAT_MS = 15_000;
const COALESCE_MS = 100;
const RETRY_MS = 3_000;
/** A stream whose unread output passes this is ended: events are hints, never worth a backlog. */
const MAX_UNREAD_BYTES = 64 * 1024;

export interface ApprovalEventOptions {
  /** Open streams this daemon serves at most (GATEWAY_APPROVAL_EVENTS_MAX_STREAMS). */
  readonly maxStreams: number;
  /** How long one stream stays open before the client must reconnect (GATEWAY_APPROVAL_EVENTS_STREAM_SECONDS). */
  readonly lifetimeMs: number;
}

export class ApprovalEventStreams {
  readonly #ends = new Set<() => void>();
  #reserved = 0;
  #closed = false;

  constructor(
    private readonly sql: Sql,
    private readonly options: ApprovalEventOptions,
  ) {}

  /** Open streams (and those admitted but not yet started). */
  get open(): number {
    return this.#ends.size + this.#reserved;
  }

  /**
   * Takes a place for one stream, or refuses (503 event_streams_full) before anything is written;
   * the route calls it in its handler and hands the place to serve().
   */
  admit(): { serve: (projectId: string, res: ServerResponse) => Promise<void> } {
    if (this.#closed || this.open >= this.options.maxStreams) throw new GatewayError('event_streams_full');
    this.#reserved++;
    let taken = false;
    return {
      serve: (projectId, res) => {
        if (!taken) this.#reserved--;
        taken = true;
        return this.#serve(projectId, res);
      },
    };
  }

  /** Ends every open stream (the daemon is stopping). */
  close(): void {
    this.#closed = true;
    for (const end of [...this.#ends]) end();
  }

  #serve(projectId: string, res: ServerResponse): Promise<void> {
    return new Promise<void>((resolve) => {
      let wakeTimer: NodeJS.Timeout | null = null;
      const send = (text: string) => {
        if (res.writableLength > MAX_UNREAD_BYTES) return end();
        res.write(text);
      };
      const unwatch = stateCacheOf(this.sql)?.watch((table, project) => {
        if ((table !== null && table !== 'approvals') || (project !== null && project !== projectId)) return;
        wakeTimer ??= setTimeout(() => {
          wakeTimer = null;
          send('event: approvals\ndata: {}\n\n');
        }, COALESCE_MS);
      });
      const heartbeat = setInterval(() => send(': keep-alive\n\n'), HEARTBEAT_MS);
      const lifetime = setTimeout(() => end(), this.options.lifetimeMs);
      let ended = false;
      const end = () => {
        if (ended) return;
        ended = true;
        unwatch?.();
        if (wakeTimer) clearTimeout(wakeTimer);
        clearInterval(heartbeat);
        clearTimeout(lifetime);
        res.off('close', end);
        this.#ends.delete(end);
        if (!res.writableEnded) res.end();
        resolve();
      };
      this.#ends.add(end);
      res.on('close', end);
      res.writeHead(200, {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-store',
        'x-accel-buffering': 'no',
      });
      send(`retry: ${RETRY_MS}\nevent: ready\ndata: {}\n\n`);
      if (res.destroyed) end(); // the client left before the stream began: no 'close' is coming
    });
  }
}
