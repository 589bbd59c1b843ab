-- Reviewer actions on traces (append-only; each is also an admin-log entry) and the indexes the
-- trace list filters need: by decision and by agent within a project's environment, newest first.

create table trace_actions (
  id             uuid primary key,
  project_id     text not null references projects (id),
  trace_id       uuid not null references traces (id),
  action         text not null check (action in ('WARN_PROCEEDED', 'JUSTIFIED')),
  justification  text,
  actor_id       text not null,
  credential_id  text,
  created_at     timestamptz not null default now()
);
create index trace_actions_trace on trace_actions (trace_id, created_at desc);

create trigger trace_actions_append_only before update or delete on trace_actions
  for each row execute function ledger_refuse_change();

create index traces_by_decision on traces (project_id, environment, decision, created_at desc);
create index traces_by_agent on traces (project_id, agent_id, created_at desc) where agent_id is not null;
