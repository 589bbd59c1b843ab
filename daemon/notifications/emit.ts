// Queues an event for every subscription that wants it: ONE insert…select in the caller's
// transaction, so the event is queued exactly when what it reports commits, and costs a single
// statement that writes nothing when nobody subscribed. Delivery happens later, off the request
// path (deliver.ts). An `agent_name` or `server_name` the builder left null is read from the agents
// and servers tables in the same statement, per subscribed row only.
import type { PendingQuery, Row } from 'postgres';
import type { Sql, Tx } from '../db/connect.js';
import { TEST_EVENT } from '../../shared/notification-schemas.js';
import { testEvent, type EventData, type EventType } from './events.js';

type Db = Sql | Tx;

function insertEvent(db: Db, type: EventType, data: EventData, where: PendingQuery<Row[]>): Promise<{ id: string }[]> {
  const agentId = data.agent_name === null && typeof data.agent_id === 'string' ? data.agent_id : null;
  const serverId = data.server_name === null && typeof data.server_id === 'string' ? data.server_id : null;
  const timestamp = new Date().toISOString();
  return db<{ id: string }[]>`
    insert into notification_deliveries (id, project_id, subscription_id, event_type, body)
    select 'msg_' || replace(gen_random_uuid()::text, '-', ''), s.project_id, s.id, ${type},
      jsonb_build_object('type', ${type}::text, 'timestamp', ${timestamp}::text, 'data', ${db.json(data as never)}::jsonb
        || jsonb_strip_nulls(jsonb_build_object(
          'agent_name', (select g.name from agents g where g.project_id = s.project_id and g.id = ${agentId}::text),
          'server_name', (select m.name from mcp_servers m where m.project_id = s.project_id and m.id = ${serverId}::text))))
    from notification_subscriptions s
    where ${where}
    order by s.created_at, s.id
    returning id`;
}

/** Queues `type` for the project's subscriptions that name it; returns how many deliveries were queued. */
export async function emitEvent(db: Db, projectId: string, type: EventType, data: EventData): Promise<number> {
  return (await insertEvent(db, type, data, db`s.project_id = ${projectId} and ${type}::text = any(s.events)`)).length;
}

/** Anchoring is shared by every project of the database: its events go to each project whose attestation is on. */
export async function emitToAttestingProjects(db: Db, type: EventType, data: EventData): Promise<number> {
  const where = db`s.project_id in (select p.id from projects p where p.attestation_enabled) and ${type}::text = any(s.events)`;
  return (await insertEvent(db, type, data, where)).length;
}

/** The `test` event, to one subscription whatever events it names; the delivery's id, null when there is no such subscription. */
export async function queueTestEvent(db: Db, projectId: string, subscriptionId: string): Promise<string | null> {
  const [row] = await insertEvent(db, TEST_EVENT, testEvent(subscriptionId), db`s.project_id = ${projectId} and s.id = ${subscriptionId}`);
  return row?.id ?? null;
}
