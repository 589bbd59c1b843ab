// A project's webhook subscriptions and its delivery log, as the Admin API manages them. A target
// must pass the MCP upstreams' address guard on its resolved address when it is subscribed (and
// again on every delivery: deliver.ts); its signing secret is shown once and kept sealed. Creating
// and removing a subscription are admin-log entries, which name the target's host only: a Slack
// webhook URL is itself a credential, and the admin log is append-only.
import { createId } from '@paralleldrive/cuid2';
import { GatewayError } from '../../shared/errors.js';
import type {
  CreatedSubscription,
  CreateSubscriptionBody,
  DeliveriesQuery,
  DeliveryListing,
  SubscriptionListing,
} from '../../shared/notification-schemas.js';
import type { SecretBox } from '../crypto/secret-box.js';
import type { Sql } from '../db/connect.js';
import { appendAdmin } from '../ledger/append.js';
import { assertUpstreamAllowed, parseAllowList, UpstreamForbiddenError, type Resolve } from '../mcp/client/ssrf-guard.js';
import { actorLabel, adminEntry, type Actor } from '../project/admin-actions.js';
import { queueTestEvent } from '../notifications/emit.js';
import { newSecret, SECRET_PURPOSE } from './sign.js';

export interface SubscriptionDeps {
  readonly sql: Sql;
  readonly secretBox: SecretBox;
  /** GATEWAY_UPSTREAM_ALLOW: the same allow-list as MCP upstreams. */
  readonly allow: readonly string[];
  readonly resolve?: Resolve;
}

const invalidUrl = (why: string) => new GatewayError('validation_error', `Invalid request: url: ${why}`);

/** The address guard ahead of time: 400 naming what is wrong, nothing written. */
async function checkTarget(url: string, deps: SubscriptionDeps): Promise<void> {
  try {
    await assertUpstreamAllowed(url, parseAllowList(deps.allow), deps.resolve);
  } catch (err) {
    if (!(err instanceof UpstreamForbiddenError)) {
      const code = (err as { code?: unknown }).code;
      if (typeof code === 'string' && /^(ENOTFOUND|EAI_AGAIN|ENODATA|ESERVFAIL)$/.test(code))
        throw invalidUrl(`the host does not resolve (${code})`);
      throw err;
    }
    if (err.reason === 'invalid_url') throw invalidUrl('not a valid absolute URL');
    if (err.reason === 'scheme') throw invalidUrl('expected an http or https URL');
    if (err.reason === 'credentials') throw invalidUrl('must not carry credentials (user:password@)');
    throw new GatewayError(
      'notification_url_forbidden',
      `The notification URL resolves to ${err.address ?? 'an address'} (${err.range ?? 'internal'}), which is not in GATEWAY_UPSTREAM_ALLOW: refused, nothing was stored.`,
    );
  }
}

interface SubscriptionRow {
  id: string;
  url: string;
  events: SubscriptionListing['events'];
  format: SubscriptionListing['format'];
  created_at: Date;
  created_by: string | null;
}

const listing = (r: SubscriptionRow): SubscriptionListing => ({
  id: r.id,
  url: r.url,
  events: r.events,
  format: r.format,
  created_at: r.created_at.toISOString(),
  created_by: r.created_by,
});

export async function createSubscription(
  deps: SubscriptionDeps,
  projectId: string,
  body: CreateSubscriptionBody,
  actor: Actor,
): Promise<CreatedSubscription> {
  await checkTarget(body.url, deps);
  const secret = newSecret();
  const id = createId();
  return deps.sql.begin(async (tx) => {
    const [row] = await tx<SubscriptionRow[]>`
      insert into notification_subscriptions (id, project_id, url, events, format, secret, created_by)
      values (${id}, ${projectId}, ${body.url}, ${body.events}, ${body.format},
              ${tx.json(deps.secretBox.seal(secret, SECRET_PURPOSE) as never)}, ${actor.principal ? actorLabel(actor) : null})
      returning id, url, events, format, created_at, created_by`;
    await appendAdmin(tx, projectId, [
      adminEntry(actor, {
        action: 'notification.subscription.create',
        activity: 'create',
        targetType: 'notification_subscription',
        targetId: id,
        details: { host: new URL(body.url).host, events: body.events, format: body.format },
      }),
    ]);
    return { ...listing(row!), secret };
  });
}

export async function listSubscriptions(sql: Sql, projectId: string): Promise<SubscriptionListing[]> {
  const rows = await sql<SubscriptionRow[]>`
    select id, url, events, format, created_at, created_by from notification_subscriptions
    where project_id = ${projectId} order by created_at, id limit 1000`;
  return rows.map(listing);
}

/** Removes a subscription; its undelivered events are marked dead ('subscription removed') and stay in the log. */
export async function removeSubscription(
  sql: Sql,
  projectId: string,
  id: string,
  actor: Actor,
): Promise<{ id: string; removed: true; undelivered_dropped: number }> {
  return sql.begin(async (tx) => {
    const [row] = await tx<{ url: string }[]>`
      delete from notification_subscriptions where project_id = ${projectId} and id = ${id} returning url`;
    if (!row) throw new GatewayError('not_found', 'No notification subscription with this id.');
    const dropped = await tx`
      update notification_deliveries set status = 'dead', last_error = 'subscription removed'
      where subscription_id = ${id} and status = 'pending' returning id`;
    await appendAdmin(tx, projectId, [
      adminEntry(actor, {
        action: 'notification.subscription.delete',
        activity: 'delete',
        targetType: 'notification_subscription',
        targetId: id,
        details: { host: new URL(row.url).host, undelivered_dropped: dropped.length },
      }),
    ]);
    return { id, removed: true as const, undelivered_dropped: dropped.length };
  });
}

/** Queues the `test` event for one subscription. */
export async function sendTestEvent(
  sql: Sql,
  projectId: string,
  id: string,
): Promise<{ id: string; subscription_id: string; type: 'test' }> {
  const delivery = await queueTestEvent(sql, projectId, id);
  if (delivery === null) throw new GatewayError('not_found', 'No notification subscription with this id.');
  return { id: delivery, subscription_id: id, type: 'test' };
}

interface DeliveryRow {
  id: string;
  subscription_id: string;
  event_type: string;
  status: DeliveryListing['status'];
  attempts: number;
  next_attempt_at: Date;
  last_status: number | null;
  last_error: string | null;
  created_at: Date;
  delivered_at: Date | null;
  body: DeliveryListing['body'];
}

/** The delivery log, oldest first, filtered by subscription and status; `cursor` is the last id of the previous page. */
export async function listDeliveries(
  sql: Sql,
  projectId: string,
  q: DeliveriesQuery,
): Promise<{ deliveries: DeliveryListing[]; next_cursor: string | null }> {
  const rows = await sql<DeliveryRow[]>`
    select id, subscription_id, event_type, status, attempts, next_attempt_at, last_status, last_error, created_at, delivered_at, body
    from notification_deliveries where project_id = ${projectId}
      ${q.subscription_id ? sql`and subscription_id = ${q.subscription_id}` : sql``}
      ${q.status ? sql`and status = ${q.status}` : sql``}
      ${q.cursor ? sql`and seq > (select seq from notification_deliveries where id = ${q.cursor} and project_id = ${projectId})` : sql``}
    order by seq limit ${q.limit + 1}`;
  const page = rows.slice(0, q.limit);
  return {
    deliveries: page.map((r) => ({
      id: r.id,
      subscription_id: r.subscription_id,
      type: r.event_type,
      status: r.status,
      attempts: r.attempts,
      next_attempt_at: r.status === 'pending' ? r.next_attempt_at.toISOString() : null,
      last_status: r.last_status,
      last_error: r.last_error,
      created_at: r.created_at.toISOString(),
      delivered_at: r.delivered_at?.toISOString() ?? null,
      body: r.body,
    })),
    next_cursor: rows.length > q.limit ? page.at(-1)!.id : null,
  };
}
