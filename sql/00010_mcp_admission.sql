-- Tool rules and agent rules of the MCP gateway, and the record of each admission (release).
--
-- A rule with mcp_tool_id and no agent_id is server-wide (it applies to every caller of that
-- tool); one with agent_id applies to that agent only (for one tool, or for every tool when
-- mcp_tool_id is null) and can only tighten. Rules of a tool go with the tool (cascade).
create table mcp_policies (
  id                 text primary key,
  project_id         text not null references projects (id),
  server_id          text references mcp_servers (id) on delete cascade,
  mcp_tool_id        text references mcp_tools (id) on delete cascade,
  agent_id           text,
  action             text not null check (action in ('ALLOW', 'LOG_ONLY', 'REQUIRE_APPROVAL', 'DENY')),
  reason             text,
  conditions         jsonb,
  is_auto_generated  boolean not null default false,
  created_by         text,
  created_at         timestamptz not null default clock_timestamp(),
  check (mcp_tool_id is not null or agent_id is not null),
  check (agent_id is null or action in ('REQUIRE_APPROVAL', 'DENY'))
);
create index mcp_policies_project on mcp_policies (project_id, created_at, id);
create index mcp_policies_tool on mcp_policies (mcp_tool_id) where mcp_tool_id is not null;
create index mcp_policies_agent on mcp_policies (project_id, agent_id) where agent_id is not null;

create table mcp_releases (
  id          text primary key,
  project_id  text not null references projects (id),
  server_id   text not null references mcp_servers (id) on delete cascade,
  kind        text not null check (kind in ('approve', 'release')),
  released    jsonb not null,
  created_by  text not null,
  created_at  timestamptz not null default now()
);
