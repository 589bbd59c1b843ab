-- Web console sessions (daemon/http/console-session.ts): a person pastes an API key once and the
-- browser then holds a random session id in an HttpOnly cookie. Only the id's SHA-256 is kept here,
-- so a read of this table gives no usable session. A session acts as its credential: revoking the
-- credential ends its sessions (the lookup joins credentials.revoked_at).
--
-- idle_seconds: the idle expiry in force when the session began (GATEWAY_CONSOLE_SESSION_IDLE_SECONDS);
-- expires_at: the absolute expiry (GATEWAY_CONSOLE_SESSION_MAX_SECONDS after sign-in);
-- origin: the gateway's own browser origin at sign-in; a state-changing request must come from it;
-- ended_at: set by sign-out.
create table console_sessions (
  id_hash       bytea primary key,
  project_id    text not null references projects (id),
  credential_id text not null references credentials (id),
  origin        text not null,
  idle_seconds  integer not null check (idle_seconds > 0),
  created_at    timestamptz not null default now(),
  last_seen_at  timestamptz not null default now(),
  expires_at    timestamptz not null,
  ended_at      timestamptz
);

create index console_sessions_by_credential on console_sessions (credential_id);
