// The link a notification of an approval request carries to its page in the web console
// (`<public URL>/console/#approval=<id>`): added when the event is delivered, so it names the
// address the gateway is reached at now (GATEWAY_PUBLIC_URL), not the one of when it was emitted.
import type { EventBody } from '../notifications/events.js';

/** The event's data with `console_url` for an approval request; any other event unchanged. */
export function withConsoleLink(event: EventBody, consoleBase: string | null): EventBody['data'] {
  const id = event.data.approval_id;
  if (event.type !== 'approval.requested' || consoleBase === null || typeof id !== 'string') return event.data;
  return { ...event.data, console_url: `${consoleBase}#approval=${encodeURIComponent(id)}` };
}
