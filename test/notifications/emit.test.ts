// emitEvent: one statement in the caller's transaction; nothing written when nobody subscribed;
// one row per subscription that names the type, none for others or other projects; names the
// builder left null filled from the tables; rolled back with the caller.
import t from 'tap';
import { emitEvent, emitToAttestingProjects, queueTestEvent } from '../../daemon/notifications/emit.js';
import { createProjectRows } from '../../daemon/project/bootstrap.js';
import { migratedDatabase } from '../helpers/project.js';

const { sql } = await migratedDatabase(t);
await sql.begin((tx) => createProjectRows(tx, 'p2', 'project two'));

const SECRET = { v: 1, kid: 'k', iv: 'i', tag: 't', data: 'd' };
async function subscription(id: string, projectId: string, events: string[]): Promise<void> {
  await sql`
    insert into notification_subscriptions (id, project_id, url, events, format, secret)
    values (${id}, ${projectId}, 'https://hooks.example.com/x', ${events}, 'standard', ${sql.json(SECRET)})`;
}
const rows = () =>
  sql`select id, project_id, subscription_id, event_type, body, status, attempts from notification_deliveries order by seq`;

t.test('nobody subscribed: nothing written', async (t) => {
  t.equal(await emitEvent(sql, 'p1', 'approval.decided', { approval_id: 'a' }), 0);
  t.same(await rows(), []);
});

t.test('one row per subscription that names the type, in this project only', async (t) => {
  await subscription('s1', 'p1', ['approval.decided', 'approval.requested']);
  await subscription('s2', 'p1', ['approval.requested']);
  await subscription('s3', 'p2', ['approval.decided']);
  t.equal(await emitEvent(sql, 'p1', 'approval.decided', { approval_id: 'a1', approved: true }), 1);
  const [row] = await rows();
  t.match(row, { project_id: 'p1', subscription_id: 's1', event_type: 'approval.decided', status: 'pending', attempts: 0 });
  t.match(row!.id, /^msg_[0-9a-f]{32}$/, 'the webhook-id');
  t.match(row!.body, { type: 'approval.decided', data: { approval_id: 'a1', approved: true } });
  t.ok(!Number.isNaN(Date.parse(row!.body.timestamp)), 'an ISO timestamp');
  t.equal(await emitEvent(sql, 'p1', 'approval.requested', { approval_id: 'a2' }), 2, 'two subscriptions, two rows, two ids');
  const ids = (await rows()).map((r) => r.id);
  t.equal(new Set(ids).size, 3);
});

t.test("names left null are read from the tables, the builder's own kept", async (t) => {
  await sql`insert into agents (id, project_id, name, protection_profile, capability_model) values ('ag1', 'p1', 'builder bot', 'safe', '{}')`;
  await sql`insert into mcp_servers (id, project_id, name, name_key, server_url, status)
            values ('sv1', 'p1', 'files', 'files', 'https://mcp.example.com', 'ACTIVE')`;
  await sql`delete from notification_deliveries`;
  await emitEvent(sql, 'p1', 'approval.requested', {
    approval_id: 'a3',
    agent_id: 'ag1',
    agent_name: null,
    server_id: 'sv1',
    server_name: null,
  });
  await emitEvent(sql, 'p1', 'approval.requested', {
    approval_id: 'a4',
    agent_id: 'ag1',
    agent_name: 'kept',
    server_id: 'nope',
    server_name: null,
  });
  const all = await rows();
  const filled = all.find((r) => r.body.data.approval_id === 'a3');
  const kept = all.find((r) => r.body.data.approval_id === 'a4');
  t.match(filled!.body.data, { agent_name: 'builder bot', server_name: 'files' });
  t.match(kept!.body.data, { agent_name: 'kept', server_name: null }, "the builder's name kept; an unknown server stays null");
});

t.test("the caller's transaction: rolled back with it", async (t) => {
  await sql`delete from notification_deliveries`;
  await t.rejects(
    sql.begin(async (tx) => {
      await emitEvent(tx, 'p1', 'approval.decided', { approval_id: 'gone' });
      throw new Error('the source failed');
    }),
  );
  t.same(await rows(), []);
});

t.test('anchoring: every project whose attestation is on', async (t) => {
  await sql`delete from notification_deliveries`;
  await subscription('s4', 'p2', ['anchoring.degraded']);
  await subscription('s5', 'p1', ['anchoring.degraded']);
  await sql`update projects set attestation_enabled = (id = 'p2')`;
  t.equal(await emitToAttestingProjects(sql, 'anchoring.degraded', { epoch: 1 }), 1);
  t.match(await rows(), [{ project_id: 'p2', subscription_id: 's4', event_type: 'anchoring.degraded' }]);
});

t.test('the test event: to the one subscription, whatever events it names', async (t) => {
  await sql`delete from notification_deliveries`;
  const id = await queueTestEvent(sql, 'p1', 's2');
  t.match(await rows(), [{ id, subscription_id: 's2', event_type: 'test', body: { type: 'test', data: { subscription_id: 's2' } } }]);
  t.equal(await queueTestEvent(sql, 'p2', 's2'), null, "another project's subscription is not found");
});
