// Outbound notifications (webhooks) as the API and gatewayctl speak them: the event catalogue, the
// two body formats, the subscription body and the delivery-log query.
import { z } from 'zod';

/** Every event a subscription may ask for (docs/notifications.md, "Events", shows one body of each). */
export const NOTIFICATION_EVENTS = [
  'approval.requested',
  'approval.decided',
  'approval.expired',
  'mcp.tool.changed',
  'mcp.scan.failed',
  'project.emergency_stop.activated',
  'project.emergency_stop.lifted',
  'anchoring.degraded',
] as const;
export type NotificationEvent = (typeof NOTIFICATION_EVENTS)[number];

/** What `POST .../subscriptions/{id}/test` sends: to that subscription only, whatever events it names. */
export const TEST_EVENT = 'test';

/** `standard`: Standard Webhooks JSON `{type, timestamp, data}`; `slack`: a Slack incoming-webhook body `{text, blocks}`. */
export const NOTIFICATION_FORMATS = ['standard', 'slack'] as const;
export type NotificationFormat = (typeof NOTIFICATION_FORMATS)[number];

export const DELIVERY_STATUSES = ['pending', 'delivered', 'dead'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

export const NOTIFICATION_URL_MAX_CHARS = 2000;

export const createSubscriptionBody = z
  .object({
    url: z
      .string()
      .trim()
      .min(1)
      .max(NOTIFICATION_URL_MAX_CHARS)
      .refine((v) => /^https?:\/\//i.test(v), 'expected an http or https URL'),
    events: z
      .array(z.enum(NOTIFICATION_EVENTS))
      .min(1)
      .max(NOTIFICATION_EVENTS.length)
      .refine((list) => new Set(list).size === list.length, 'an event is named more than once'),
    format: z.enum(NOTIFICATION_FORMATS).default('standard'),
  })
  .strict();
export type CreateSubscriptionBody = z.infer<typeof createSubscriptionBody>;

export const deliveriesQuery = z
  .object({
    subscription_id: z.string().min(1).max(200).optional(),
    status: z.enum(DELIVERY_STATUSES).optional(),
    limit: z.coerce.number().int().min(1).max(1000).default(1000),
    cursor: z.string().min(1).max(200).optional(),
  })
  .strict();
export type DeliveriesQuery = z.infer<typeof deliveriesQuery>;

/** A subscription as listed (never its secret). */
export interface SubscriptionListing {
  id: string;
  url: string;
  events: NotificationEvent[];
  format: NotificationFormat;
  created_at: string;
  created_by: string | null;
}

/** The create answer: the listing plus the signing secret, shown this once. */
export interface CreatedSubscription extends SubscriptionListing {
  secret: string;
}

/** One row of the delivery log. */
export interface DeliveryListing {
  id: string;
  subscription_id: string;
  type: string;
  status: DeliveryStatus;
  attempts: number;
  next_attempt_at: string | null;
  last_status: number | null;
  last_error: string | null;
  created_at: string;
  delivered_at: string | null;
  body: { type: string; timestamp: string; data: Record<string, unknown> };
}
