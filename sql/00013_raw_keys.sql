-- Raw originals are kept only while a project's audit_detail_level is `full` (contract). Each raw
-- original is sealed with the project's current data key; the key itself is stored wrapped by the
-- daemon's encryption key. Leaving `full` destroys the project's data keys (the wrapped bytes are
-- erased), so every raw original sealed under them becomes unreadable at once, while the trace
-- content stays byte-identical and its committed hash keeps verifying. Returning to `full` starts
-- a new key; earlier raw originals stay gone.
create table raw_keys (
  id            text primary key,
  project_id    text not null references projects (id),
  wrapped       jsonb,
  created_at    timestamptz not null default now(),
  destroyed_at  timestamptz,
  check ((wrapped is null) = (destroyed_at is not null))
);
create unique index raw_keys_active on raw_keys (project_id) where destroyed_at is null;
