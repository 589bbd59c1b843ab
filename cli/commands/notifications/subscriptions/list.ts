// gatewayctl notifications subscriptions list: the project's webhooks, never their secrets.
import type { SubscriptionListing } from '../../../../shared/notification-schemas.js';
import { GatewayCommand } from '../../../base-command.js';
import { table } from '../../../format.js';
import { safeText } from '../../../trace-output.js';

export default class NotificationsSubscriptionsList extends GatewayCommand {
  static override summary = "List the project's notification subscriptions (Admin; never their secrets).";
  static override examples = [
    '<%= config.bin %> notifications subscriptions list',
    '<%= config.bin %> notifications subscriptions list --json',
  ];

  async run(): Promise<{ subscriptions: SubscriptionListing[] }> {
    await this.parse(NotificationsSubscriptionsList);
    const result = await (await this.api()).request<{ subscriptions: SubscriptionListing[] }>('GET', '/api/v1/notifications/subscriptions');
    if (result.subscriptions.length === 0) this.log('No notification subscriptions.');
    else {
      this.log(
        table(
          ['ID', 'FORMAT', 'URL', 'EVENTS', 'CREATED', 'CREATED BY'],
          result.subscriptions.map((s) => [s.id, s.format, safeText(s.url, 60), s.events.join(','), s.created_at, s.created_by]),
        ),
      );
    }
    return result;
  }
}
