-- Foundation: projects, credentials, emergency stop, rate-limit counters and the ledger
-- (traces, their content, the admin-action log, one chain head per project and stream).

create table projects (
  id                    text primary key,
  name                  text not null,
  audit_detail_level    text not null default 'standard' check (audit_detail_level in ('minimal', 'standard', 'full')),
  retention_days        integer not null default 90 check (retention_days between 1 and 3650),
  attestation_enabled   boolean not null default false,
  tier                  text not null default 'team',
  rate_limit_per_minute integer not null default 60000 check (rate_limit_per_minute > 0),
  included_requests     bigint not null default 1000000 check (included_requests >= 0),
  monthly_base_fee_eur  numeric(12, 2) not null default 0 check (monthly_base_fee_eur >= 0),
  overage_eur_per_1000  numeric(12, 4) not null default 0 check (overage_eur_per_1000 >= 0),
  created_at            timestamptz not null default now(),
  updated_at            timestamptz not null default now()
);

-- Project API keys, user tokens and extension keys. Only a SHA-256 of the token is stored.
create table credentials (
  id            text primary key,
  project_id    text not null references projects (id),
  kind          text not null check (kind in ('project_key', 'user_token', 'extension')),
  name          text not null,
  role          text check (role in ('viewer', 'editor', 'admin')),
  user_id       text,
  token_prefix  text not null,
  token_hash    bytea not null unique,
  created_at    timestamptz not null default now(),
  created_by    text,
  revoked_at    timestamptz,
  check ((kind = 'extension') = (role is null)),
  check ((kind = 'user_token') = (user_id is not null))
);
create index credentials_project_kind on credentials (project_id, kind, created_at);

create table project_stops (
  project_id    text primary key references projects (id),
  active        boolean not null default false,
  reason        text,
  activated_at  timestamptz,
  activated_by  text,
  lifted_at     timestamptz,
  lifted_by     text
);

-- Fixed one-minute windows shared by every daemon on the database. Unlogged: a counter
-- lost in a crash only forgives part of a minute, and no request waits for a WAL flush for it.
create unlogged table rate_windows (
  project_id    text not null,
  window_start  timestamptz not null,
  count         integer not null,
  primary key (project_id, window_start)
);

-- One row per project and stream ('traces', 'admin'): the last sequence number and hash.
-- Appends lock this row, so sequence numbers are gapless without a SEQUENCE.
create table ledger_heads (
  project_id  text not null references projects (id),
  stream      text not null check (stream in ('traces', 'admin')),
  seq         bigint not null check (seq >= 0),
  head        text not null,
  primary key (project_id, stream)
);

create table traces (
  id              uuid primary key,
  project_id      text not null references projects (id),
  sequence_num    bigint not null check (sequence_num > 0),
  created_at      timestamptz not null,
  trace_type      text not null,
  decision        text not null,
  reason          text,
  action_name     text,
  environment     text not null,
  agent_id        text,
  content_hash    text not null,
  prev_hash       text not null,
  integrity_hash  text not null,
  unique (project_id, sequence_num)
);
create index traces_list on traces (project_id, environment, created_at desc, sequence_num desc);

-- Content committed in the chain by a salted hash; the retention worker deletes these rows only.
create table trace_content (
  trace_id    uuid primary key references traces (id),
  project_id  text not null,
  created_at  timestamptz not null,
  salt        bytea not null,
  body        jsonb not null
);
create index trace_content_age on trace_content (project_id, created_at);

-- The tamper-evident admin-action log: same chain mechanism, its own stream per project.
create table admin_log (
  id               uuid primary key,
  project_id       text not null references projects (id),
  sequence_num     bigint not null check (sequence_num > 0),
  created_at       timestamptz not null,
  action           text not null,
  actor_kind       text not null,
  actor_id         text,
  credential_id    text,
  target_type      text not null,
  target_id        text,
  ocsf_class_uid   integer not null,
  ocsf_activity_id integer not null,
  request_id       text,
  details          jsonb not null,
  prev_hash        text not null,
  integrity_hash   text not null,
  unique (project_id, sequence_num)
);

-- History cannot be rewritten by the application: ledger rows refuse UPDATE, DELETE and TRUNCATE,
-- and a chain head only moves forward.
create function ledger_refuse_change() returns trigger language plpgsql as $$
begin
  raise exception 'ledger rows are append-only: % on % refused', tg_op, tg_table_name using errcode = 'GW001';
end $$;

create trigger traces_append_only before update or delete on traces
  for each row execute function ledger_refuse_change();
create trigger traces_no_truncate before truncate on traces
  for each statement execute function ledger_refuse_change();
create trigger admin_log_append_only before update or delete on admin_log
  for each row execute function ledger_refuse_change();
create trigger admin_log_no_truncate before truncate on admin_log
  for each statement execute function ledger_refuse_change();

create function ledger_head_forward_only() returns trigger language plpgsql as $$
begin
  if tg_op = 'DELETE' or new.seq < old.seq or new.project_id <> old.project_id or new.stream <> old.stream then
    raise exception 'ledger heads only move forward' using errcode = 'GW001';
  end if;
  return new;
end $$;
create trigger ledger_heads_forward_only before update or delete on ledger_heads
  for each row execute function ledger_head_forward_only();
