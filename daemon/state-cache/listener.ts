// One dedicated connection per daemon that LISTENs on `gateway_state` (migration 00015) and hands
// each notification to the state cache. Its own postgres.js instance rather than sql.listen, because
// the cache must know when the connection is gone (postgres.js re-listens on its own but says
// nothing in between): on close the cache is bypassed, and the LISTEN is retried on a new
// connection with a growing delay; once it succeeds the cache starts empty (listenerUp).
//
// A connection can also die without closing (a half-open TCP connection, a frozen network path):
// no close event, no notification, and the cache would serve what it holds until its entries'
// maximum age. So every heartbeat interval the listener sends a marker notification on its own
// connection; if the marker has not come back within the same interval, the connection is treated
// as closed (cache bypassed, connection dropped, LISTEN retried). What the cache holds is at most
// about two heartbeat intervals behind a write made while the connection was silently dead.
import { randomUUID } from 'node:crypto';
import postgres from 'postgres';
import type { Logger } from '../log.js';
import type { StateCache } from './cache.js';

export const STATE_CHANNEL = 'gateway_state';

export interface StateListener {
  /** Resolves after the first LISTEN attempt, connected or not (a failed one keeps retrying). */
  readonly started: Promise<void>;
  close(): Promise<void>;
}

export interface ListenerOptions {
  readonly instanceId: string;
  /** First retry delay; it doubles up to maxRetryMs. */
  readonly retryMs?: number;
  readonly maxRetryMs?: number;
  /** How often the connection must prove it still delivers notifications (default 5 s). */
  readonly heartbeatMs?: number;
}

export function listenForState(url: string, cache: StateCache, log: Logger, options: ListenerOptions): StateListener {
  let closing = false;
  let timer: NodeJS.Timeout | null = null;
  let delay = options.retryMs ?? 100;
  const maxDelay = options.maxRetryMs ?? 5_000;
  const heartbeatMs = options.heartbeatMs ?? 5_000;
  let current: postgres.Sql | null = null;
  let awaited: { payload: string; arrived: () => void } | null = null;

  function open(): postgres.Sql {
    // onnotify is a connection option postgres.js reads (its own listen() uses it) but does not type.
    const onnotify = (channel: string, payload: string) => {
      if (channel !== STATE_CHANNEL || conn !== current) return;
      if (awaited?.payload === payload) return awaited.arrived();
      cache.notified(payload);
    };
    const conn: postgres.Sql = postgres(url, {
      ...{ onnotify },
      max: 1,
      idle_timeout: 0,
      max_lifetime: null,
      connect_timeout: 10,
      fetch_types: false,
      onnotice: () => {},
      connection: { application_name: `gatewayd:${options.instanceId}:state` },
      onclose: () => {
        if (conn === current) lost('state cache listener disconnected; reading the database until it is back');
      },
    });
    return conn;
  }

  /** The connection is gone or silent: bypass the cache, drop the connection, try again later. */
  function lost(message: string | null): void {
    const was = cache.connected;
    cache.listenerDown();
    const conn = current;
    current = null;
    void conn?.end({ timeout: 0 }).catch(() => undefined);
    if (closing) return;
    if (was && message) log.warn(message);
    schedule();
  }

  function schedule(): void {
    if (closing || timer !== null) return;
    timer = setTimeout(() => {
      timer = null;
      void attempt();
    }, delay);
    timer.unref();
    delay = Math.min(delay * 2, maxDelay);
  }

  async function attempt(): Promise<void> {
    const conn = open();
    current = conn;
    try {
      await conn.unsafe(`listen ${STATE_CHANNEL}`);
    } catch (err) {
      if (conn !== current) return; // its close already scheduled the next attempt
      if (!closing) log.warn({ err }, 'state cache listener could not LISTEN; retrying');
      lost(null);
      return;
    }
    if (closing || conn !== current) return;
    delay = options.retryMs ?? 100;
    cache.listenerUp();
  }

  /** One marker notification, sent and awaited on the listening connection itself. */
  async function heartbeat(): Promise<void> {
    const conn = current;
    if (!conn || !cache.connected || awaited !== null) return;
    const payload = JSON.stringify({ t: 'marker', m: `heartbeat:${randomUUID()}` });
    let expired: NodeJS.Timeout | undefined;
    const arrived = await new Promise<boolean>((resolve) => {
      awaited = { payload, arrived: () => resolve(true) };
      expired = setTimeout(() => resolve(false), heartbeatMs);
      conn`select pg_notify(${STATE_CHANNEL}, ${payload})`.catch(() => undefined); // a failure shows as no marker
    });
    clearTimeout(expired);
    awaited = null;
    if (!arrived && conn === current && !closing) {
      lost(`state cache listener sent no notification for ${heartbeatMs} ms; reading the database until it is back`);
    }
  }

  const beat = setInterval(() => void heartbeat(), heartbeatMs);
  beat.unref();

  return {
    started: attempt(),
    async close() {
      closing = true;
      clearInterval(beat);
      if (timer !== null) clearTimeout(timer);
      cache.listenerDown();
      const conn = current;
      current = null;
      await conn?.end({ timeout: 1 });
    },
  };
}
