// The command center's live feed: the latest traces, newest first, read backwards along the
// (project, sequence_num) key. Only display-safe text, by the one rule of the trace list
// (contentView): nothing of a blocked or held prompt, never a raw original.
import type { LiveFeedItem } from '../../shared/command-center-schemas.js';
import type { Sql } from '../db/connect.js';
import { contentView, type StoredTrace } from '../traces/rows.js';

export const LIVE_FEED_SIZE = 20;
const DISPLAY_MAX = 240;

/** A trace's columns as the trace list reads them, and only whether it has content and its display text. */
type Row = Pick<
  StoredTrace,
  'id' | 'sequence_num' | 'created_at' | 'trace_type' | 'decision' | 'reason' | 'action_name' | 'environment' | 'agent_id'
> & { has_content: boolean; display: string | null };

function clip(text: string): string {
  if (text.length <= DISPLAY_MAX) return text;
  return [...text].slice(0, DISPLAY_MAX - 1).join('') + '…';
}

export async function liveFeed(sql: Sql, projectId: string, size = LIVE_FEED_SIZE): Promise<LiveFeedItem[]> {
  // Only the display field leaves the database: the body's other fields (raw included) are never read here.
  const rows = await sql<Row[]>`
    select t.id::text as id, t.sequence_num::text as sequence_num, t.created_at, t.trace_type, t.decision, t.reason,
           t.action_name, t.environment, t.agent_id, c.trace_id is not null as has_content,
           case when jsonb_typeof(c.body -> 'display') = 'string' then c.body ->> 'display' end as display
    from (select * from traces where project_id = ${projectId} order by sequence_num desc limit ${size}) t
    left join trace_content c on c.trace_id = t.id
    order by t.sequence_num desc`;
  return rows.map((r) => {
    const view = contentView(r.decision, r.has_content ? (r.display === null ? {} : { display: r.display }) : null);
    return {
      id: r.id,
      sequence_num: Number(r.sequence_num),
      timestamp: r.created_at.toISOString(),
      trace_type: r.trace_type,
      decision: r.decision,
      reason: r.reason,
      action_name: r.action_name,
      agent_id: r.agent_id,
      environment: r.environment,
      display_content: clip(view.display_content),
      content_state: view.content_state,
    };
  });
}
