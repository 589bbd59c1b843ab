// Standard Webhooks signing (https://www.standardwebhooks.com): the secret is `whsec_` + base64 of
// a random key; each attempt carries webhook-id (the same on every retry, for deduplication),
// webhook-timestamp (seconds, this attempt's) and webhook-signature `v1,<base64 HMAC-SHA256 of
// "id.timestamp.body" under the key>`. Receivers verify with any Standard Webhooks library.
import { createHmac, randomBytes } from 'node:crypto';

const PREFIX = 'whsec_';

/** A new signing secret (32 random bytes). */
export function newSecret(): string {
  return PREFIX + randomBytes(32).toString('base64');
}

function keyOf(secret: string): Buffer {
  return Buffer.from(secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret, 'base64');
}

/** `v1,<base64 signature>` of one attempt. */
export function sign(secret: string, id: string, timestampSeconds: number, body: string): string {
  const mac = createHmac('sha256', keyOf(secret)).update(`${id}.${timestampSeconds}.${body}`, 'utf8').digest('base64');
  return `v1,${mac}`;
}

/** The three headers of one attempt. */
export function signatureHeaders(secret: string, id: string, body: string, now = new Date()): Record<string, string> {
  const timestamp = Math.floor(now.getTime() / 1000);
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': sign(secret, id, timestamp, body),
  };
}

/** The secret box purpose a subscription's secret is sealed under (crypto/secret-box.ts). */
export const SECRET_PURPOSE = 'notification-subscription-secret';
