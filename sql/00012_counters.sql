-- The command center's pre-aggregated trace counters, and the idempotency keys of extension
-- webhook deliveries.
--
-- trace_counts is maintained by the ledger append itself (daemon/ledger/append.ts), in the same
-- statement that inserts the traces, so a count is committed exactly when its trace is. Each trace
-- adds 1 to a few rows (daemon/command-center/counter-keys.ts) of the UTC minute of its created_at:
--   dim 'total'        trace_type, decision                  every trace, once
--   dim 'agent'        decision BLOCKED or '', key = agent   requests (verify, MCP tool call, event) of an agent
--   dim 'policy'       trace_type, key = policy name         once per distinct policy that fired
--   dim 'content_type' key = content type                    verify traces (text, image, document, ...)
-- Hour rows are rolled up from minute rows, and day rows from hour rows, once they are over
-- (daemon/command-center/rollups.ts); trace_count_rollups says up to when, per project. Minute rows
-- older than two days are deleted once rolled up; hour and day rows are kept.
create table trace_counts (
  project_id  text not null,
  grain       text not null check (grain in ('minute', 'hour', 'day')),
  dim         text not null check (dim in ('total', 'agent', 'policy', 'content_type')),
  bucket      timestamptz not null,
  trace_type  text not null default '',
  decision    text not null default '',
  key         text not null default '',
  count       bigint not null check (count > 0),
  primary key (project_id, grain, dim, bucket, trace_type, decision, key)
);

create table trace_count_rollups (
  project_id   text primary key,
  hours_until  timestamptz not null,
  days_until   timestamptz not null
);

-- One row per extension delivery that carried an event id (or Idempotency-Key): a retry finds the
-- first delivery's trace here. The primary key makes concurrent retries wait for the first one and
-- then find it; the key and its trace are committed in one transaction.
create table webhook_deliveries (
  project_id       text not null references projects (id),
  extension_id     text not null references credentials (id),
  idempotency_key  text not null,
  trace_id         uuid not null references traces (id) deferrable initially deferred,
  created_at       timestamptz not null default now(),
  primary key (project_id, extension_id, idempotency_key)
);
