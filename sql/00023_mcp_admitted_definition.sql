-- The definition a person admitted, kept beside its fingerprint: approved_hash stays the rule (a
-- call passes only while the current fingerprint equals it), admitted_definition is for people, so
-- that a tool changed since admission can be shown old against new (the console's Servers page).
-- Set by every admission (daemon/mcp/servers/server-admission.ts: server approval and
-- tools/release) from the same row the fingerprint was checked against: { title, description,
-- input_schema, annotations }. Null for tools never admitted, and for tools admitted before this
-- migration (their old definition was never recorded).
alter table mcp_tools add column admitted_definition jsonb;
