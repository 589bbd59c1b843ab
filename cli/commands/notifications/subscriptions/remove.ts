// gatewayctl notifications subscriptions remove: no more events go to it; what it had not received
// yet is marked dead in the delivery log.
import { Args } from '@oclif/core';
import { GatewayCommand } from '../../../base-command.js';

export default class NotificationsSubscriptionsRemove extends GatewayCommand {
  static override summary = 'Remove a notification subscription (Admin); its undelivered events are dropped (dead in the log).';
  static override aliases = ['notifications:subscriptions:delete'];
  static override examples = ['<%= config.bin %> notifications subscriptions remove SUBSCRIPTION_ID'];
  static override args = {
    id: Args.string({ description: 'ID of the subscription (see notifications subscriptions list).', required: true }),
  };

  async run(): Promise<{ id: string; removed: true; undelivered_dropped: number }> {
    const { args } = await this.parse(NotificationsSubscriptionsRemove);
    const result = await (await this.api()).request<{ id: string; removed: true; undelivered_dropped: number }>(
      'DELETE',
      `/api/v1/notifications/subscriptions/${encodeURIComponent(args.id)}`,
    );
    this.log(`Removed subscription ${result.id}; ${result.undelivered_dropped} undelivered event(s) dropped.`);
    return result;
  }
}
