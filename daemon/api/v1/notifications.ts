// /api/v1/notifications (Admin): webhook subscriptions (the signing secret answered once, at
// creation), a test event per subscription, and the delivery log.
import { createSubscriptionBody, deliveriesQuery } from '../../../shared/notification-schemas.js';
import type { Deps } from '../../deps.js';
import { defineRoute, type Route } from '../../http/types.js';
import { createSubscription, listDeliveries, listSubscriptions, removeSubscription, sendTestEvent } from '../../delivery/subscriptions.js';
import { actorOf } from '../actor.js';

export function notificationRoutes(deps: Deps): Route[] {
  const subscriptions = { sql: deps.sql, secretBox: deps.secretBox, allow: deps.config.upstreamAllow };
  return [
    defineRoute({
      method: 'POST',
      path: '/api/v1/notifications/subscriptions',
      summary: 'Subscribe a webhook to events',
      auth: 'admin',
      body: createSubscriptionBody,
      async handler(r) {
        const { body } = r;
        return { status: 201, body: await createSubscription(subscriptions, r.principal.projectId, body, actorOf(r)) };
      },
    }),
    {
      method: 'GET',
      path: '/api/v1/notifications/subscriptions',
      summary: 'List webhook subscriptions',
      auth: 'admin',
      async handler(r) {
        return { status: 200, body: { subscriptions: await listSubscriptions(deps.sql, r.principal.projectId) } };
      },
    },
    {
      method: 'DELETE',
      path: '/api/v1/notifications/subscriptions/:id',
      summary: 'Remove a webhook subscription',
      auth: 'admin',
      async handler(r) {
        return { status: 200, body: await removeSubscription(deps.sql, r.principal.projectId, r.params.id!, actorOf(r)) };
      },
    },
    {
      method: 'POST',
      path: '/api/v1/notifications/subscriptions/:id/test',
      summary: 'Send a signed test event to a subscription',
      auth: 'admin',
      async handler(r) {
        return { status: 202, body: await sendTestEvent(deps.sql, r.principal.projectId, r.params.id!) };
      },
    },
    defineRoute({
      method: 'GET',
      path: '/api/v1/notifications/deliveries',
      summary: 'The notification delivery log',
      auth: 'admin',
      query: deliveriesQuery,
      async handler(r) {
        const { query: q } = r;
        return { status: 200, body: await listDeliveries(deps.sql, r.principal.projectId, q) };
      },
    }),
  ];
}
