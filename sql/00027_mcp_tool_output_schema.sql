-- A tool's output schema as its last scan read it, beside its input schema: the fingerprint has
-- always covered it (daemon/mcp/client/tool-surface.ts), so a tool whose output schema changed was
-- blocked until re-admitted while nobody could see what had changed. Admissions from now on record
-- it in admitted_definition too ({ ..., output_schema }). Null until a scan after this migration
-- reads the tool (or when the tool declares none); an admitted_definition recorded before it has no
-- output_schema key, which the console shows as not recorded rather than as none.
alter table mcp_tools add column output_schema jsonb;
