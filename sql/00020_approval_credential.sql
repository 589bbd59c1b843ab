-- Approvals bound to the credential that made the held call.
--
-- credential_id: the API key or user token (credentials.id, never a secret) whose call created the
-- request. Only that credential can spend an MCP approval (approvals/store.ts consumeMcpApproval),
-- and open requests and new requests per minute are counted per credential (approvals/limits.ts).
-- Requests created before this migration have none: an MCP one among them can no longer be spent
-- (fail closed; the caller repeats the call and a new request is opened).
alter table approvals add column credential_id text;

-- Serves both counts of a hold: the credential's open requests and those it created in the last minute.
create index approvals_by_credential on approvals (project_id, credential_id, created_at) where credential_id is not null;
