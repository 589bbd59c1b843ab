-- Stdio MCP servers: programs the gateway starts in a sandbox (daemon/mcp/stdio/) rather than
-- addresses it calls. An HTTP server keeps transport 'http' and none of the columns below.
--
-- server_url of a stdio server reads stdio:<command> (no address: nothing is ever sent to it over
-- HTTP). env holds the plain variables as JSON; secret_env the secret ones, sealed with the
-- daemon's secret box like auth_config (purpose gw.mcp.stdio-env.v1), and secret_env_names their
-- names, the only part of them ever listed. grants: [{path, mode: ro|rw}].
alter table mcp_servers
  add column transport text not null default 'http' check (transport in ('http', 'stdio')),
  add column command text,
  add column args jsonb not null default '[]',
  add column cwd text,
  add column env jsonb not null default '{}',
  add column secret_env jsonb,
  add column secret_env_names text[] not null default '{}',
  add column grants jsonb not null default '[]',
  add column network_allowed boolean not null default false,
  add column process_mode text not null default 'shared' check (process_mode in ('shared', 'per-session')),
  add constraint mcp_servers_stdio_command check ((transport = 'stdio') = (command is not null));
