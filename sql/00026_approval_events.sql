-- The approvals event stream (GET /api/v1/approvals/events, daemon/approvals/event-stream.ts): a
-- new approval request announces itself as a decision already does (00018), so the console's
-- inbox hears of it at commit, from whichever daemon held the call. As in 00018 the notification
-- only wakes: the listener reads the approvals for the truth.

create trigger approvals_state_notify_insert after insert on approvals
  for each row execute function gateway_state_notify();
