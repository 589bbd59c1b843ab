// gatewayctl notifications subscriptions add: a webhook for the project's events. The signing
// secret is printed once (stdout), never again; the daemon keeps it sealed.
import { Flags } from '@oclif/core';
import {
  createSubscriptionBody,
  NOTIFICATION_EVENTS,
  NOTIFICATION_FORMATS,
  type CreatedSubscription,
} from '../../../../shared/notification-schemas.js';
import { checkBody } from '../../../agent-flags.js';
import { GatewayCommand } from '../../../base-command.js';
import { safeText } from '../../../trace-output.js';

export default class NotificationsSubscriptionsAdd extends GatewayCommand {
  static override summary = "Subscribe a webhook URL to the project's events (Admin); prints its signing secret once.";
  static override aliases = ['notifications:subscriptions:create'];
  static override description = `Events: ${NOTIFICATION_EVENTS.join(', ')}.`;
  static override examples = [
    '<%= config.bin %> notifications subscriptions add --url https://hooks.example.com/gw --events approval.requested,approval.decided',
    '<%= config.bin %> notifications subscriptions add --url https://hooks.slack.com/services/T/B/X --events approval.requested --format slack',
  ];

  static override flags = {
    url: Flags.string({
      summary: 'Where to POST (http or https; its resolved address must be public or in GATEWAY_UPSTREAM_ALLOW).',
      required: true,
    }),
    events: Flags.string({ summary: 'Comma-separated event types.', required: true }),
    format: Flags.string({ summary: 'Body format.', options: [...NOTIFICATION_FORMATS], default: 'standard' }),
  };

  async run(): Promise<CreatedSubscription> {
    const { flags } = await this.parse(NotificationsSubscriptionsAdd);
    const events = flags.events
      .split(',')
      .map((e) => e.trim())
      .filter(Boolean);
    const body = checkBody(createSubscriptionBody, { url: flags.url, events, format: flags.format });
    const created = await (await this.api()).request<CreatedSubscription>('POST', '/api/v1/notifications/subscriptions', body);
    this.notice(
      `Created subscription ${created.id} (${created.format}) to ${safeText(created.url, 100)} for ${created.events.join(', ')}.`,
    );
    this.notice('This signing secret is shown once and cannot be retrieved again: store it now.');
    this.log(created.secret);
    return created;
  }
}
