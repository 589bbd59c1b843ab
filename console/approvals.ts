// The approvals inbox: the open requests from GET /api/v1/approvals (the route `gatewayctl approvals
// list` reads), read again as soon as GET /api/v1/approvals/events says they changed (and on every
// (re)connect of that stream), and every POLL_MS in any case (the stream refused, or a proxy that
// holds it back). Each request is a card that counts down to its expiry and decides through POST
// /api/v1/approvals/{id}/decide. A request that leaves the open list without a decision made here
// stays on the page saying who decided it (or that it expired).
import { ApiError, request, type Session } from './api.js';
import { type Approval, approvalCard, type Card } from './approval-card.js';
import { fill, h } from './dom.js';
import { messageOf } from './sign-in.js';

const POLL_MS = 15_000;

export function outcomeText(a: Approval, byMe: boolean): string {
  const why = a.comment ? ` ("${a.comment}")` : '';
  const by = `${a.decided_by ?? 'someone else'}${why}`;
  if (a.status === 'APPROVED' || a.status === 'USED')
    return byMe ? `You approved this request${why}.` : `Already decided: approved by ${by}.`;
  if (a.status === 'DENIED') return byMe ? `You denied this request${why}.` : `Already decided: denied by ${by}.`;
  if (a.status === 'EXPIRED') return 'This request expired before anyone decided.';
  if (a.status === 'CANCELLED') return 'This request was cancelled (its call ended or was stopped).';
  return `This request is ${a.status.toLowerCase()}.`;
}

/** The request a notification linked to (`#approval=<id>`, daemon/delivery/console-link.ts), if any. */
function linkedId(): string | null {
  const m = /^#approval=([^&]+)$/.exec(window.location.hash);
  if (!m) return null;
  try {
    return decodeURIComponent(m[1]!);
  } catch {
    return null;
  }
}

/** Shows the inbox in `main`; returns a function that stops its timers. */
export function showApprovals(main: HTMLElement, session: Session): () => void {
  const cards = new Map<string, { card: Card; open: boolean }>();
  const list = h('div', { class: 'list' });
  const summary = h('p', { class: 'summary', attrs: { role: 'status', 'aria-live': 'polite' } }, 'Loading open requests…');
  const followed = h('p', { class: 'followed', attrs: { role: 'status' } });
  fill(main, h('h1', {}, 'Approvals'), summary, followed, list);
  let stopped = false;
  let shown: string | null = null;

  // The linked request's card is brought into view and focused; one no longer open says what became of it.
  const showLinked = async () => {
    const id = linkedId();
    if (id === null || id === shown) return;
    shown = id;
    const entry = cards.get(id);
    if (entry) {
      entry.card.node.classList.add('linked');
      entry.card.node.setAttribute('tabindex', '-1');
      entry.card.node.scrollIntoView({ block: 'center' });
      entry.card.node.focus();
      return;
    }
    const a = await request<Approval>('GET', `/api/v1/approvals/${encodeURIComponent(id)}`).catch(() => null);
    followed.textContent = a
      ? `The request you followed is no longer open. ${outcomeText(a, false)}`
      : 'The request you followed was not found.';
  };
  const onHash = () => {
    shown = null;
    followed.textContent = '';
    void showLinked();
  };
  window.addEventListener('hashchange', onHash);

  const settle = (id: string, a: Approval, byMe: boolean) => {
    const entry = cards.get(id);
    if (!entry?.open) return;
    entry.open = false;
    entry.card.settle(outcomeText(a, byMe));
  };

  const decide = (a: Approval, approved: boolean, comment: string) => {
    const entry = cards.get(a.id);
    entry?.card.say(approved ? 'Approving…' : 'Denying…');
    const body = comment === '' ? { approved } : { approved, comment };
    request<Approval>('POST', `/api/v1/approvals/${encodeURIComponent(a.id)}/decide`, body).then(
      (decided) => settle(a.id, decided, true),
      async (err: unknown) => {
        if (err instanceof ApiError && err.code === 'approval_not_open') {
          const now = await request<Approval>('GET', `/api/v1/approvals/${encodeURIComponent(a.id)}`).catch(() => null);
          if (now) return settle(a.id, now, false);
        }
        entry?.card.say(messageOf(err));
      },
    );
  };

  const refresh = async () => {
    const { approvals } = await request<{ approvals: Approval[] }>('GET', '/api/v1/approvals');
    const open = new Set(approvals.map((a) => a.id));
    for (const a of approvals) {
      if (cards.has(a.id)) continue;
      const card = approvalCard(a, session, decide);
      card.tick(Date.now());
      cards.set(a.id, { card, open: true });
      list.append(card.node);
    }
    for (const [id, entry] of cards) {
      if (!entry.open || open.has(id)) continue;
      const now = await request<Approval>('GET', `/api/v1/approvals/${encodeURIComponent(id)}`).catch(() => null);
      if (now && now.status !== 'PENDING') settle(id, now, false);
    }
    await showLinked();
    const count = approvals.length;
    const text = count === 0 ? 'No open requests.' : `${count} open request${count === 1 ? '' : 's'}.`;
    if (summary.textContent !== text) summary.textContent = text;
  };

  // One reading at a time: an event that arrives during one cuts the following wait short.
  let wake: (() => void) | null = null;
  let woken = false;
  const poll = async () => {
    while (!stopped) {
      woken = false;
      await refresh().catch((err: unknown) => {
        if (!stopped) summary.textContent = `Could not read the open requests: ${messageOf(err)}`;
      });
      if (woken) continue;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, POLL_MS);
        function done() {
          clearTimeout(timer);
          wake = null;
          resolve();
        }
        wake = done;
      });
    }
  };
  const changed = () => {
    woken = true;
    wake?.();
  };
  const events = new EventSource('/api/v1/approvals/events');
  events.addEventListener('ready', changed);
  events.addEventListener('approvals', changed);
  void poll();
  const ticker = setInterval(() => {
    const now = Date.now();
    for (const { card, open } of cards.values()) if (open) card.tick(now);
  }, 1000);
  return () => {
    stopped = true;
    events.close();
    wake?.();
    clearInterval(ticker);
    window.removeEventListener('hashchange', onHash);
  };
}
