-- Registered AI agents: EU AI Act onboarding metadata, an enforced lifecycle status, the
-- capability model derived from the protection profile, and cheap activity counters.

create table agents (
  id                         text primary key,
  project_id                 text not null references projects (id),
  name                       text not null,
  description                text,
  agent_type                 text,
  model                      text,
  risk_classification        text check (risk_classification in ('MINIMAL', 'LIMITED', 'HIGH', 'UNACCEPTABLE')),
  purpose_description        text,
  intended_purpose           text,
  intended_users             text,
  known_limitations          text,
  requires_human_oversight   boolean not null default false,
  annex_iii_domain           text,
  prohibited_screen_result   text,
  provider_or_deployer       text,
  responsible_person_id      text,
  technical_lead_id          text,
  approval_authority_id      text,
  tags                       jsonb not null default '[]',
  permissions                jsonb not null default '[]',
  infrastructure_permissions jsonb not null default '{}',
  permitted_tools            jsonb,
  fria_assessment            jsonb,
  transparency_disclosure    jsonb,
  framework                  text,
  protection_profile         text not null check (protection_profile in ('safe', 'balanced', 'full_access')),
  capability_model           jsonb not null,
  status                     text not null default 'PENDING_APPROVAL'
                             check (status in ('PENDING_APPROVAL', 'ACTIVE', 'PAUSED', 'SUSPENDED', 'REJECTED', 'REVOKED')),
  suspended_reason           text,
  status_changed_at          timestamptz not null default now(),
  created_by                 text,
  created_at                 timestamptz not null default now(),
  updated_at                 timestamptz not null default now(),
  last_seen_at               timestamptz,
  request_count              bigint not null default 0,
  requests_day               date,
  requests_today             integer not null default 0
);
create index agents_project_created on agents (project_id, created_at, id);
create index agents_project_status on agents (project_id, status);

-- REVOKED is terminal: not even a direct UPDATE can bring an agent back.
create function agents_revoked_is_terminal() returns trigger language plpgsql as $$
begin
  if old.status = 'REVOKED' and new.status <> 'REVOKED' then
    raise exception 'agent % is REVOKED, which is terminal', old.id using errcode = 'GW002';
  end if;
  return new;
end $$;
create trigger agents_revoked_terminal before update on agents
  for each row execute function agents_revoked_is_terminal();
