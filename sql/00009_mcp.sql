-- The MCP gateway's registry: upstream servers and the tools their scans found.
--
-- A server's status (PENDING_APPROVAL, ACTIVE, BLOCKED) changes only by human action; scans write
-- scan_state, scan_reason and the stored scan (scan_result, versioned by its `format`). Names are
-- unique per project ignoring case and outer spaces, enforced by the index on name_key, so two
-- concurrent registrations cannot both win. auth_config is sealed (AES-256-GCM) and never returned.
-- A tool is keyed by (server, name): a renamed tool is a new, unadmitted tool. approved_hash is
-- the fingerprint recorded at admission; present is false once a scan no longer lists it.

create table mcp_servers (
  id                    text primary key,
  project_id            text not null references projects (id),
  name                  text not null,
  name_key              text not null,
  server_url            text not null,
  connector_type        text not null default 'custom',
  description           text,
  is_proxied            boolean not null default false,
  auth_method           text not null default 'none',
  auth_config           jsonb,
  status                text not null check (status in ('PENDING_APPROVAL', 'ACTIVE', 'BLOCKED')),
  scan_state            text not null default 'never' check (scan_state in ('never', 'failed', 'not_run', 'succeeded')),
  scan_reason           text,
  scan_detail           text,
  is_healthy            boolean not null default false,
  scan_result           jsonb,
  last_scan_at          timestamptz,
  last_scan_attempt_at  timestamptz,
  created_by            text,
  created_at            timestamptz not null default now(),
  updated_at            timestamptz not null default now()
);
create unique index mcp_servers_name on mcp_servers (project_id, name_key);
create index mcp_servers_project on mcp_servers (project_id, created_at, id);

create table mcp_tools (
  id                    text primary key,
  project_id            text not null references projects (id),
  server_id             text not null references mcp_servers (id) on delete cascade,
  name                  text not null,
  title                 text,
  description           text,
  input_schema          jsonb not null,
  annotations           jsonb,
  current_fingerprint   text not null,
  description_hash      text not null,
  risk_level            text not null,
  category              text not null,
  action                text not null,
  proposed_rule         text,
  proposed_rule_source  text check (proposed_rule_source in ('action', 'template')),
  findings              jsonb not null default '[]',
  present               boolean not null default true,
  approved_hash         text,
  approved_at           timestamptz,
  approved_by           text,
  is_auto_generated     boolean not null default true,
  first_seen_at         timestamptz not null default now(),
  last_seen_at          timestamptz not null default now(),
  unique (server_id, name),
  check ((proposed_rule is null) = (proposed_rule_source is null))
);
create index mcp_tools_project on mcp_tools (project_id, server_id);
