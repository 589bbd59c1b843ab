-- The verify pipeline's configuration and the approval store.
--
-- verify_policies: a project's prompt policies (detector + configuration + action + scope).
-- verify_field_roles: which fields of a tool's structured input are routing (kept) or content (scanned).
-- approvals: held decisions waiting for a human, for verify and for MCP tool calls alike; each is
-- bound to the canonical hash of exactly what it was requested for and is used at most once.

create table verify_policies (
  id             text primary key,
  project_id     text not null references projects (id),
  name           text not null,
  description    text,
  detector       text not null check (detector in ('pii', 'secrets', 'injection', 'keywords', 'regex')),
  config         jsonb not null,
  action         text not null check (action in ('BLOCK', 'REDACT', 'FLAG', 'REQUIRE_APPROVAL', 'WARN', 'JUSTIFY', 'REDIRECT')),
  action_config  jsonb not null default '{}',
  sources        text[] not null,
  environments   text[] not null,
  enabled        boolean not null default true,
  is_default     boolean not null default false,
  created_at     timestamptz not null default now(),
  updated_at     timestamptz not null default now()
);
create unique index verify_policies_name on verify_policies (project_id, lower(btrim(name)));
create index verify_policies_project on verify_policies (project_id, created_at, id);

alter table projects add column verify_defaults_seeded boolean not null default false;

create table verify_field_roles (
  project_id  text not null references projects (id),
  tool_name   text not null,
  field       text not null,
  role        text not null check (role in ('routing', 'content')),
  updated_at  timestamptz not null default now(),
  primary key (project_id, tool_name, field)
);

create table approvals (
  id              text primary key,
  project_id      text not null references projects (id),
  kind            text not null check (kind in ('verify', 'mcp')),
  trace_id        uuid,
  server_id       text,
  tool_name       text,
  agent_id        text,
  arguments_hash  text not null,
  status          text not null check (status in ('PENDING', 'APPROVED', 'DENIED', 'EXPIRED', 'USED', 'CANCELLED')),
  created_at      timestamptz not null default now(),
  expires_at      timestamptz not null,
  decided_at      timestamptz,
  decided_by      text,
  comment         text,
  used_at         timestamptz
);
create index approvals_open on approvals (project_id, expires_at) where status = 'PENDING';
create index approvals_by_trace on approvals (trace_id) where trace_id is not null;
create index approvals_by_agent on approvals (project_id, agent_id) where status = 'PENDING';
