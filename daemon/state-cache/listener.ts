// One dedicated connection per daemon that LISTENs on `gateway_state` (migration 00015) and hands
// each notification to the state cache. Its own postgres.js instance rather than sql.listen, because
// the cache must know when the connection is gone (postgres.js re-listens on its own but says
// nothing in between): on close the cache is bypassed, and the LISTEN is retried with a growing
// delay; once it succeeds the cache starts empty (listenerUp).
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
}

export function listenForState(url: string, cache: StateCache, log: Logger, options: ListenerOptions): StateListener {
  let closing = false;
  let timer: NodeJS.Timeout | null = null;
  let delay = options.retryMs ?? 100;
  const maxDelay = options.maxRetryMs ?? 5_000;
  // onnotify is a connection option postgres.js reads (its own listen() uses it) but does not type.
  const notify = { onnotify: (channel: string, payload: string) => { if (channel === STATE_CHANNEL) cache.notified(payload); } };
  const lsql = postgres(url, {
    ...notify,
    max: 1,
    idle_timeout: 0,
    max_lifetime: null,
    connect_timeout: 10,
    fetch_types: false,
    onnotice: () => {},
    connection: { application_name: `gatewayd:${options.instanceId}:state` },
    onclose: () => {
      const was = cache.connected;
      cache.listenerDown();
      if (closing) return;
      if (was) log.warn('state cache listener disconnected; reading the database until it is back');
      schedule();
    },
  });

  function schedule(): void {
    if (closing || timer !== null) return;
    timer = setTimeout(() => { timer = null; void attempt(); }, delay);
    timer.unref();
    delay = Math.min(delay * 2, maxDelay);
  }

  async function attempt(): Promise<void> {
    try {
      await lsql.unsafe(`listen ${STATE_CHANNEL}`);
    } catch (err) {
      // The connection's close (if it had opened) already scheduled the next attempt.
      if (!closing) log.warn({ err }, 'state cache listener could not LISTEN; retrying');
      schedule();
      return;
    }
    if (closing) return;
    delay = options.retryMs ?? 100;
    cache.listenerUp();
  }

  return {
    started: attempt(),
    async close() {
      closing = true;
      if (timer !== null) clearTimeout(timer);
      cache.listenerDown();
      await lsql.end({ timeout: 1 });
    },
  };
}
