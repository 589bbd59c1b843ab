-- How MCP tools are listed.
--
-- 1. The project setting mcp_tools_list: what the proxy leaves of an upstream's tools/list answer
--    (daemon/mcp/proxy/list-filter.ts). The proxy reads it through the state cache, so projects
--    notify like the tables of 00015 (a project's own id names it).
-- 2. GET /mcp/servers/{id}/tools is oldest first (first_seen_at, then id). Each new tool takes the
--    clock reading of its own insert, so the tools one scan finds keep the order the upstream listed
--    them in; now() would give them all the scan's transaction start.

alter table projects add column mcp_tools_list text not null default 'admitted'
  check (mcp_tools_list in ('admitted', 'callable', 'upstream'));

create function gateway_project_notify() returns trigger language plpgsql as $$
begin
  if tg_op = 'DELETE' then
    perform pg_notify('gateway_state', json_build_object('t', tg_table_name, 'p', old.id)::text);
  else
    perform pg_notify('gateway_state', json_build_object('t', tg_table_name, 'p', new.id)::text);
  end if;
  if tg_op = 'UPDATE' and old.id is distinct from new.id then
    perform pg_notify('gateway_state', json_build_object('t', tg_table_name, 'p', old.id)::text);
  end if;
  return null;
end
$$;

create trigger projects_state_notify after insert or update or delete on projects
  for each row execute function gateway_project_notify();
create trigger projects_state_truncate after truncate on projects for each statement execute function gateway_state_notify_all();

alter table mcp_tools alter column first_seen_at set default clock_timestamp();
create index mcp_tools_server_first_seen on mcp_tools (server_id, first_seen_at, id);
