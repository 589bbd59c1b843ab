-- Outbound notifications (daemon/notifications/): webhook subscriptions per project and the durable
-- outbox of their deliveries.
--
-- notification_subscriptions: where a project's events go (url), which ones (events), in which body
-- (format). The signing secret is sealed with the daemon's secret box (crypto/secret-box.ts), like
-- an MCP server's sign-in: shown once at creation, never stored or listed in clear.
--
-- notification_deliveries: the outbox and the delivery log in one. One row per event and
-- subscription, inserted in the transaction that made the event happen (an event is queued if and
-- only if it happened), delivered by whichever daemon claims it first (FOR UPDATE SKIP LOCKED plus
-- a lease in next_attempt_at), and kept afterwards as the log. id is the webhook-id a receiver
-- deduplicates on, the same on every attempt; seq orders events (several in one transaction share
-- created_at). body is the event as the standard format sends it: display-safe data only.
-- A removed subscription's undelivered rows are marked dead ('subscription removed') by the
-- removing transaction; the log keeps them, so subscription_id has no foreign key.

create table notification_subscriptions (
  id          text primary key,
  project_id  text not null references projects (id),
  url         text not null,
  events      text[] not null,
  format      text not null check (format in ('standard', 'slack')),
  secret      jsonb not null,
  created_at  timestamptz not null default now(),
  created_by  text
);
create index notification_subscriptions_project on notification_subscriptions (project_id);

create table notification_deliveries (
  id               text primary key,
  seq              bigint generated always as identity,
  project_id       text not null references projects (id),
  subscription_id  text not null,
  event_type       text not null,
  body             jsonb not null,
  status           text not null default 'pending' check (status in ('pending', 'delivered', 'dead')),
  attempts         integer not null default 0,
  next_attempt_at  timestamptz not null default now(),
  last_status      integer,
  last_error       text,
  created_at       timestamptz not null default now(),
  delivered_at     timestamptz
);
create index notification_deliveries_due on notification_deliveries (next_attempt_at) where status = 'pending';
create index notification_deliveries_log on notification_deliveries (project_id, seq);
create index notification_deliveries_subscription on notification_deliveries (subscription_id, seq);
