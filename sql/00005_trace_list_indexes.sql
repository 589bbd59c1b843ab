-- Trace list indexes, sized with test/bench/trace-list.ts at 10 million traces. Every list index
-- now ends in the list's order (created_at desc, sequence_num desc), so a filtered page is found,
-- its offset skipped and its capped total counted on the index alone (index-only scans), with no
-- sort. By agent: environment joins the key (the list always filters on it; before, every match
-- was read from the table to check it), and decision rides along (INCLUDE) so that agent plus
-- decision filters are answered from the index too.
-- Built inside the migration transaction: on a large table, trace appends wait for the build.

drop index traces_by_decision;
create index traces_by_decision on traces (project_id, environment, decision, created_at desc, sequence_num desc);

drop index traces_by_agent;
create index traces_by_agent on traces (project_id, environment, agent_id, created_at desc, sequence_num desc)
  include (decision) where agent_id is not null;
