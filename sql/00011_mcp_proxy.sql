-- The MCP proxy's own state.
--
-- mcp_proxy_sessions: an upstream 2025-era session (Mcp-Session-Id) is bound to the gateway
-- credential that opened it through the proxy, so another caller cannot ride it and any daemon on
-- this database can serve the next request of the session. Only a SHA-256 of the session id is
-- kept: the id itself is a bearer secret towards the upstream server.
--
-- mcp_call_outcomes: what happened upstream after a tools/call was forwarded (status, outcome,
-- latency), keyed by the decision trace that was made durable before forwarding. Written after the
-- answer, in batches, with synchronous_commit off: the decision is the durable record; the outcome
-- never costs the response path a second fsync.

create table mcp_proxy_sessions (
  project_id     text not null references projects (id),
  server_id      text not null references mcp_servers (id) on delete cascade,
  session_hash   text not null,
  credential_id  text not null,
  created_at     timestamptz not null default now(),
  primary key (server_id, session_hash)
);

create table mcp_call_outcomes (
  trace_id         uuid primary key,
  project_id       text not null references projects (id),
  server_id        text not null,
  tool_name        text not null,
  upstream_status  integer,
  outcome          text not null,
  rpc_code         integer,
  latency_ms       double precision,
  recorded_at      timestamptz not null default now()
);
create index mcp_call_outcomes_project on mcp_call_outcomes (project_id, recorded_at);
