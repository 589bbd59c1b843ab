// gatewayctl notifications deliveries: the delivery log, oldest first: each event per subscription
// with its state (pending, delivered, dead), attempts and the last answer or error.
import { Flags } from '@oclif/core';
import { DELIVERY_STATUSES, deliveriesQuery, type DeliveryListing } from '../../../shared/notification-schemas.js';
import { checkBody } from '../../agent-flags.js';
import { GatewayCommand } from '../../base-command.js';
import { table } from '../../format.js';
import { safeText } from '../../trace-output.js';

export default class NotificationsDeliveries extends GatewayCommand {
  static override summary = 'Show the notification delivery log (Admin), oldest first.';
  static override examples = [
    '<%= config.bin %> notifications deliveries',
    '<%= config.bin %> notifications deliveries --subscription SUBSCRIPTION_ID --status dead',
  ];

  static override flags = {
    subscription: Flags.string({ summary: 'Only this subscription.' }),
    status: Flags.string({ summary: 'Only this state.', options: [...DELIVERY_STATUSES] }),
    limit: Flags.integer({ summary: 'At most this many rows (1-1000).', default: 1000 }),
    cursor: Flags.string({ summary: "Continue after this delivery id (the previous page's next_cursor)." }),
  };

  async run(): Promise<{ deliveries: DeliveryListing[]; next_cursor: string | null }> {
    const { flags } = await this.parse(NotificationsDeliveries);
    const q = checkBody(
      deliveriesQuery,
      { subscription_id: flags.subscription, status: flags.status, limit: flags.limit, cursor: flags.cursor },
      { subscription_id: '--subscription' },
    );
    const params = new URLSearchParams();
    for (const [k, v] of Object.entries(q)) if (v !== undefined) params.set(k, String(v));
    const result = await (await this.api()).request<{ deliveries: DeliveryListing[]; next_cursor: string | null }>(
      'GET',
      `/api/v1/notifications/deliveries?${params.toString()}`,
    );
    if (result.deliveries.length === 0) this.log('No deliveries.');
    else {
      this.log(
        table(
          ['ID', 'SUBSCRIPTION', 'TYPE', 'STATUS', 'ATTEMPTS', 'LAST', 'CREATED', 'DELIVERED / NEXT'],
          result.deliveries.map((d) => [
            d.id,
            d.subscription_id,
            d.type,
            d.status,
            d.attempts,
            safeText(d.last_error ?? (d.last_status === null ? '' : `HTTP ${d.last_status}`), 60),
            d.created_at,
            d.delivered_at ?? d.next_attempt_at,
          ]),
        ),
      );
    }
    if (result.next_cursor) this.notice(`More: --cursor ${result.next_cursor}`);
    return result;
  }
}
