-- Content governance on the MCP path (daemon/mcp/content/): per project, and overridable per server
-- and per tool (by name), which detector looks at a call's arguments and at what comes back, and
-- what it does with a finding. No row: the built-in default (shared/mcp-content-schemas.ts). The
-- proxy reads them through the state cache, so the table notifies like those of 00015.
create table mcp_content_policies (
  id          text primary key,
  project_id  text not null references projects (id),
  server_id   text references mcp_servers (id) on delete cascade,
  tool_name   text,
  direction   text not null check (direction in ('arguments', 'results')),
  detector    text not null check (detector in ('secrets', 'pii', 'injection')),
  action      text not null check (action in ('BLOCK', 'REDACT', 'FLAG', 'OFF')),
  config      jsonb not null default '{}',
  created_by  text,
  created_at  timestamptz not null default clock_timestamp(),
  updated_at  timestamptz not null default clock_timestamp(),
  check (tool_name is null or server_id is not null)
);
-- One policy per scope, direction and detector.
create unique index mcp_content_policies_scope
  on mcp_content_policies (project_id, coalesce(server_id, ''), coalesce(tool_name, ''), direction, detector);
create index mcp_content_policies_order on mcp_content_policies (project_id, created_at, id);

create trigger mcp_content_policies_state_notify after insert or update or delete on mcp_content_policies
  for each row execute function gateway_state_notify();
create trigger mcp_content_policies_state_truncate after truncate on mcp_content_policies
  for each statement execute function gateway_state_notify_all();

-- What the detectors found in a held call's arguments (types and JSON paths, never values), shown
-- to whoever decides the approval.
alter table approvals add column findings jsonb;
