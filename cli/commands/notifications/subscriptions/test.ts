// gatewayctl notifications subscriptions test: queues a `test` event for one subscription; the
// delivery log (notifications deliveries) shows whether it arrived.
import { Args } from '@oclif/core';
import { GatewayCommand } from '../../../base-command.js';

export default class NotificationsSubscriptionsTest extends GatewayCommand {
  static override summary = 'Send a test event to a subscription (Admin); see the outcome with notifications deliveries.';
  static override examples = ['<%= config.bin %> notifications subscriptions test SUBSCRIPTION_ID'];
  static override args = {
    id: Args.string({ description: 'ID of the subscription (see notifications subscriptions list).', required: true }),
  };

  async run(): Promise<{ id: string; subscription_id: string; type: string }> {
    const { args } = await this.parse(NotificationsSubscriptionsTest);
    const result = await (await this.api()).request<{ id: string; subscription_id: string; type: string }>(
      'POST',
      `/api/v1/notifications/subscriptions/${encodeURIComponent(args.id)}/test`,
    );
    this.log(`Queued test event ${result.id} for subscription ${result.subscription_id}.`);
    this.log(`Follow it with: gatewayctl notifications deliveries --subscription ${result.subscription_id}`);
    return result;
  }
}
