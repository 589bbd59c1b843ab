-- Waiting for an approval's decision (daemon/mcp/proxy/approval-wait.ts).
--
-- 1. The project setting approval_wait_seconds: how long the MCP proxy keeps a held tools/call open
--    for the decision when the client accepts an event stream and names no wait of its own
--    (header X-Gateway-Approval-Wait). 0, the default, is the spec's immediate -32004.
-- 2. A decision wakes the waiters on every daemon: a change of an approval's status notifies
--    gateway_state '{"t": "approvals", "p": <project id>}' at commit, as the cached tables of 00015
--    do. The notification only wakes; the waiter reads the approval's row for the truth.

alter table projects add column approval_wait_seconds integer not null default 0
  check (approval_wait_seconds between 0 and 900);

create trigger approvals_state_notify after update on approvals
  for each row when (old.status is distinct from new.status)
  execute function gateway_state_notify();
