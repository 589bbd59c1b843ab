-- State-cache invalidation: every write to a table the daemons cache (daemon/state-cache/) sends
-- NOTIFY gateway_state '{"t": <table>, "p": <project id>}' at commit, whoever wrote it (any daemon,
-- any code path, a manual UPDATE). PostgreSQL folds identical payloads of one transaction into one
-- notification, so a statement touching many rows of a project notifies once per table.
-- agents is also written by the activity counters every few seconds; only the columns the proxy
-- reads (status, capability_model) notify on UPDATE there, so the counters do not flush the cache.
-- TRUNCATE (no rows to name a project by) sends a null project: every daemon drops everything.

create function gateway_state_notify() returns trigger language plpgsql as $$
declare
  project text;
begin
  if tg_op = 'DELETE' then
    project := old.project_id;
  else
    project := new.project_id;
  end if;
  perform pg_notify('gateway_state', json_build_object('t', tg_table_name, 'p', project)::text);
  -- A row moved to another project invalidates the old one as well.
  if tg_op = 'UPDATE' and old.project_id is distinct from new.project_id then
    perform pg_notify('gateway_state', json_build_object('t', tg_table_name, 'p', old.project_id)::text);
  end if;
  return null;
end
$$;

create function gateway_state_notify_all() returns trigger language plpgsql as $$
begin
  perform pg_notify('gateway_state', json_build_object('t', tg_table_name, 'p', null)::text);
  return null;
end
$$;

create trigger credentials_state_notify after insert or update or delete on credentials
  for each row execute function gateway_state_notify();
create trigger project_stops_state_notify after insert or update or delete on project_stops
  for each row execute function gateway_state_notify();
create trigger mcp_servers_state_notify after insert or update or delete on mcp_servers
  for each row execute function gateway_state_notify();
create trigger mcp_tools_state_notify after insert or update or delete on mcp_tools
  for each row execute function gateway_state_notify();
create trigger mcp_policies_state_notify after insert or update or delete on mcp_policies
  for each row execute function gateway_state_notify();
create trigger mcp_proxy_sessions_state_notify after insert or update or delete on mcp_proxy_sessions
  for each row execute function gateway_state_notify();
create trigger agents_state_notify_rows after insert or delete on agents
  for each row execute function gateway_state_notify();
create trigger agents_state_notify_update after update on agents
  for each row when (old.status is distinct from new.status
    or old.capability_model is distinct from new.capability_model
    or old.project_id is distinct from new.project_id
    or old.id is distinct from new.id)
  execute function gateway_state_notify();

create trigger credentials_state_truncate after truncate on credentials for each statement execute function gateway_state_notify_all();
create trigger project_stops_state_truncate after truncate on project_stops for each statement execute function gateway_state_notify_all();
create trigger mcp_servers_state_truncate after truncate on mcp_servers for each statement execute function gateway_state_notify_all();
create trigger mcp_tools_state_truncate after truncate on mcp_tools for each statement execute function gateway_state_notify_all();
create trigger mcp_policies_state_truncate after truncate on mcp_policies for each statement execute function gateway_state_notify_all();
create trigger mcp_proxy_sessions_state_truncate after truncate on mcp_proxy_sessions for each statement execute function gateway_state_notify_all();
create trigger agents_state_truncate after truncate on agents for each statement execute function gateway_state_notify_all();
