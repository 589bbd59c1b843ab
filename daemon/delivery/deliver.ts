// The delivery worker: every daemon runs it, off the request path. A pass claims due outbox rows
// (FOR UPDATE SKIP LOCKED, then a lease: next_attempt_at moves past the attempt's longest time, so
// no other daemon takes the row meanwhile, and a daemon that dies mid-delivery leaves the row to be
// taken again when the lease ends: at least once), POSTs each through an SSRF-guarded dispatcher
// with the same allow-list as MCP upstreams (no redirects followed, a time limit), and records the
// outcome: 2xx delivered; anything else retried with exponential backoff and jitter until the
// retry window (24 h by default) after the event has passed, then dead. A forbidden address is dead
// at once, with the reason. A subscription's rows go one after another, oldest first; its first
// failure ends its turn in the pass, so one slow receiver delays the others by one time limit at most.
import { request, type Dispatcher } from 'undici';
import { KeyMismatchError, type Sealed, type SecretBox } from '../crypto/secret-box.js';
import type { Sql } from '../db/connect.js';
import type { Logger } from '../log.js';
import { createUpstreamDispatcher, parseUpstreamUrl, UpstreamForbiddenError } from '../mcp/client/ssrf-guard.js';
import { every, type Periodic } from '../workers/periodic.js';
import type { EventBody } from '../notifications/events.js';
import { SECRET_PURPOSE, signatureHeaders } from './sign.js';
import { withConsoleLink } from './console-link.js';
import { slackBody } from './slack.js';

export interface DeliveryOptions {
  /** How often each daemon looks for due rows. */
  readonly pollMs: number;
  /** One attempt's longest time: connect, answer, body. */
  readonly timeoutMs: number;
  /** The first retry's delay; each further one doubles, up to retryMaxMs, with jitter. */
  readonly retryBaseMs: number;
  readonly retryMaxMs: number;
  /** After this long since the event, a failed attempt is the last one (dead). */
  readonly retryWindowMs: number;
}

export interface DeliveryDeps {
  readonly sql: Sql;
  readonly log: Logger;
  readonly secretBox: SecretBox;
  /** From createUpstreamDispatcher: the address guard on every connection. */
  readonly dispatcher: Dispatcher;
  /** The web console's address (`<public URL>/console/`), linked from approval requests. */
  readonly consoleUrl?: () => string;
}

/** Rows claimed per pass, and at most this many of one subscription (delivered in turn). */
const BATCH = 50;
const PER_SUBSCRIPTION = 5;
const RESPONSE_READ_LIMIT = 64 * 1024;

interface Claimed {
  id: string;
  subscription_id: string;
  event_type: string;
  body: EventBody;
  attempts: number;
  /** bigint, as postgres.js returns it. */
  seq: string;
}

interface Target {
  id: string;
  url: string;
  format: 'standard' | 'slack';
  secret: Sealed;
}

type Outcome =
  | { kind: 'delivered'; status: number }
  | { kind: 'retry'; status: number | null; error: string }
  | { kind: 'dead'; status: number | null; error: string };

/** The delay before retry number `attempts` (1 = after the first failure): exponential, capped, with jitter in [½, 1]. */
export function backoffMs(attempts: number, baseMs: number, maxMs: number, random: () => number = Math.random): number {
  const exp = Math.min(maxMs, baseMs * 2 ** Math.min(Math.max(attempts - 1, 0), 40));
  return Math.round(exp * (0.5 + random() / 2));
}

/** What one row may take before another daemon may take it again: its subscription's turn plus a margin. */
const leaseMs = (o: DeliveryOptions): number => o.timeoutMs * (PER_SUBSCRIPTION + 1) + 5000;

const ms = (n: number): string => `${Math.max(0, Math.round(n))} milliseconds`;

async function claim(sql: Sql, o: DeliveryOptions): Promise<Claimed[]> {
  return sql<Claimed[]>`
    with due as (
      select id, subscription_id, seq from notification_deliveries
      where status = 'pending' and next_attempt_at <= now()
      order by seq limit ${BATCH}
      for update skip locked
    ), picked as (
      select id from (select id, row_number() over (partition by subscription_id order by seq) as n from due) x
      where n <= ${PER_SUBSCRIPTION}
    )
    update notification_deliveries d set attempts = d.attempts + 1, next_attempt_at = now() + ${ms(leaseMs(o))}::interval
    from picked where d.id = picked.id
    returning d.id, d.subscription_id, d.event_type, d.body, d.attempts, d.seq`.then((rows) =>
    [...rows].sort((a, b) => Number(a.seq) - Number(b.seq)),
  );
}

/**
 * The bytes sent: the standard body `{type, timestamp, data}` in that order, or its Slack rendering;
 * an approval request's data with its console link (console-link.ts) when the console's address is known.
 */
export function renderBody(format: Target['format'], event: EventBody, consoleBase: string | null = null): string {
  const standard: EventBody = { type: event.type, timestamp: event.timestamp, data: withConsoleLink(event, consoleBase) };
  return JSON.stringify(format === 'slack' ? slackBody(standard) : standard);
}

function* causes(err: unknown): Generator<unknown> {
  for (let e: unknown = err, depth = 0; e !== null && e !== undefined && depth < 8; e = (e as { cause?: unknown }).cause, depth++) {
    yield e;
  }
}

function failureOf(err: unknown, timeoutMs: number): Outcome {
  const forbidden = [...causes(err)].find((e): e is UpstreamForbiddenError => e instanceof UpstreamForbiddenError);
  if (forbidden) return { kind: 'dead', status: null, error: `refused before sending: ${forbidden.message}` };
  if ((err as { name?: unknown })?.name === 'TimeoutError')
    return { kind: 'retry', status: null, error: `no answer within ${timeoutMs} ms` };
  const code = [...causes(err)].map((e) => (e as { code?: unknown }).code).find((c) => typeof c === 'string');
  return { kind: 'retry', status: null, error: `not delivered (${typeof code === 'string' ? code : 'connection failed'})` };
}

async function attempt(deps: DeliveryDeps, o: DeliveryOptions, row: Claimed, target: Target): Promise<Outcome> {
  let secret: string;
  try {
    secret = deps.secretBox.open(target.secret, SECRET_PURPOSE);
  } catch (err) {
    const why = err instanceof KeyMismatchError ? 'sealed with another encryption key than this daemon holds' : 'unreadable';
    return { kind: 'retry', status: null, error: `the signing secret is ${why}` };
  }
  try {
    parseUpstreamUrl(target.url);
  } catch (err) {
    if (err instanceof UpstreamForbiddenError) return { kind: 'dead', status: null, error: `refused before sending: ${err.message}` };
    throw err;
  }
  const body = renderBody(target.format, row.body, deps.consoleUrl?.() ?? null);
  try {
    const res = await request(target.url, {
      method: 'POST',
      dispatcher: deps.dispatcher,
      headers: {
        'content-type': 'application/json',
        'user-agent': 'governance-gateway-webhooks/1',
        ...signatureHeaders(secret, row.id, body),
      },
      body,
      signal: AbortSignal.timeout(o.timeoutMs),
      headersTimeout: o.timeoutMs,
      bodyTimeout: o.timeoutMs,
    });
    await res.body.dump({ limit: RESPONSE_READ_LIMIT }).catch(() => undefined);
    if (res.statusCode >= 200 && res.statusCode < 300) return { kind: 'delivered', status: res.statusCode };
    const redirect = res.statusCode >= 300 && res.statusCode < 400 ? ' (redirects are not followed)' : '';
    return { kind: 'retry', status: res.statusCode, error: `HTTP ${res.statusCode}${redirect}` };
  } catch (err) {
    return failureOf(err, o.timeoutMs);
  }
}

/** Writes an attempt's outcome, unless another daemon has claimed the row again since (its lease ran out). */
async function record(sql: Sql, o: DeliveryOptions, row: Claimed, outcome: Outcome): Promise<string> {
  const mine = sql`id = ${row.id} and status = 'pending' and attempts = ${row.attempts}`;
  if (outcome.kind === 'delivered') {
    await sql`
      update notification_deliveries set status = 'delivered', delivered_at = now(), last_status = ${outcome.status}, last_error = null
      where ${mine}`;
    return 'delivered';
  }
  if (outcome.kind === 'dead') {
    await sql`
      update notification_deliveries set status = 'dead', last_status = ${outcome.status}, last_error = ${outcome.error}
      where ${mine}`;
    return 'dead';
  }
  const delay = ms(backoffMs(row.attempts, o.retryBaseMs, o.retryMaxMs));
  const [r] = await sql<{ status: string }[]>`
    update notification_deliveries set
      status = case when now() + ${delay}::interval > created_at + ${ms(o.retryWindowMs)}::interval then 'dead' else 'pending' end,
      next_attempt_at = now() + ${delay}::interval,
      last_status = ${outcome.status},
      last_error = ${outcome.error}
        || case when now() + ${delay}::interval > created_at + ${ms(o.retryWindowMs)}::interval then '; retries ended' else '' end
    where ${mine}
    returning status`;
  return r?.status ?? 'taken over';
}

/** Gives claimed rows back as they were (not attempted), due at once. */
async function release(sql: Sql, rows: readonly Claimed[]): Promise<void> {
  for (const row of rows) {
    await sql`
      update notification_deliveries set attempts = attempts - 1, next_attempt_at = now()
      where id = ${row.id} and status = 'pending' and attempts = ${row.attempts}`;
  }
}

async function targets(sql: Sql, ids: readonly string[]): Promise<Map<string, Target>> {
  if (ids.length === 0) return new Map();
  const rows = await sql<Target[]>`select id, url, format, secret from notification_subscriptions where id in ${sql([...new Set(ids)])}`;
  return new Map(rows.map((r) => [r.id, r]));
}

/** One pass: claims what is due and delivers it; returns how many rows it claimed. */
export async function deliverDue(deps: DeliveryDeps, o: DeliveryOptions): Promise<number> {
  const claimed = await claim(deps.sql, o);
  if (claimed.length === 0) return 0;
  const bySubscription = new Map<string, Claimed[]>();
  for (const row of claimed) bySubscription.set(row.subscription_id, [...(bySubscription.get(row.subscription_id) ?? []), row]);
  const known = await targets(deps.sql, [...bySubscription.keys()]);
  await Promise.all(
    [...bySubscription].map(async ([subscriptionId, rows]) => {
      const target = known.get(subscriptionId);
      for (const [i, row] of rows.entries()) {
        const outcome: Outcome = target
          ? await attempt(deps, o, row, target)
          : { kind: 'dead', status: null, error: 'subscription removed' };
        const status = await record(deps.sql, o, row, outcome);
        const fields = { delivery: row.id, subscription: subscriptionId, type: row.event_type, attempts: row.attempts };
        if (outcome.kind === 'delivered') {
          deps.log.debug(fields, 'notification delivered');
          continue;
        }
        if (status === 'dead') deps.log.warn({ ...fields, error: outcome.error }, 'notification dead');
        else deps.log.info({ ...fields, error: outcome.error }, 'notification not delivered; retried later');
        // A receiver that failed once costs this pass no more time: its other rows go back, unattempted.
        if (outcome.kind === 'retry') {
          await release(deps.sql, rows.slice(i + 1));
          break;
        }
      }
    }),
  );
  return claimed.length;
}

/**
 * Starts this daemon's worker. Its dispatcher is its own (the notification time limit) with the
 * MCP upstreams' allow-list; it is closed by stop().
 */
export function startDeliveries(
  base: Omit<DeliveryDeps, 'dispatcher'>,
  o: DeliveryOptions & { readonly allow: readonly string[] },
): Periodic {
  const dispatcher = createUpstreamDispatcher({ allow: o.allow, connectTimeoutMs: o.timeoutMs });
  const deps: DeliveryDeps = { ...base, dispatcher };
  let stopped = false;
  const worker = every(o.pollMs, o.pollMs, 'notifications', base.log, async () => {
    // A full batch means more is due: keep going now rather than a poll interval later.
    while ((await deliverDue(deps, o)) === BATCH && !stopped);
  });
  return {
    async stop() {
      stopped = true;
      await worker.stop();
      await dispatcher.close().catch(() => undefined);
    },
  };
}
