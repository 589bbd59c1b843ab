// The command center's counters: which keys a trace adds to (pure), and that the counters kept by
// the ledger append equal a recount from the traces themselves after concurrent appends through
// the group-commit writer and through domain transactions.
import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import t, { type Test as TapTest } from 'tap';
import type { Sql } from '../../daemon/db/connect.js';
import { DeadLetterQueue } from '../../daemon/ledger/dlq.js';
import { bucketOf, counterKeys, counterRows, type CountedInput } from '../../daemon/ledger/counters.js';
import { appendTraces } from '../../daemon/ledger/append.js';
import { TraceWriter } from '../../daemon/ledger/trace-writer.js';
import type { TraceInput } from '../../daemon/ledger/streams.js';
import { migratedDatabase } from '../helpers/project.js';

const verify = (decision: string, details: Record<string, unknown>, agentId: string | null = null): CountedInput => ({
  traceType: 'VERIFY',
  decision,
  agentId,
  content: { display: 'x', details },
});

t.test('counterKeys: a plain trace adds to its total only', async (t) => {
  t.same(counterKeys({ traceType: 'AGENT_LIFECYCLE', decision: 'POLICY_CHANGE', agentId: null, content: {} }), [
    { dim: 'total', traceType: 'AGENT_LIFECYCLE', decision: 'POLICY_CHANGE', key: '' },
  ]);
});

t.test('counterKeys: agent, each fired policy once, and the content type of a verify trace', async (t) => {
  const keys = counterKeys(
    verify(
      'MODIFIED',
      {
        policies: [
          { policy: 'Personal data', segment: 'prompt' },
          { policy: 'Personal data', segment: 'attachment:0' },
          { policy: 'Keywords' },
          { nope: 1 },
          { policy: '' },
        ],
        attachments: [{ category: 'document' }, { category: 'document' }],
      },
      'agent-1',
    ),
  );
  t.same(keys, [
    { dim: 'total', traceType: 'VERIFY', decision: 'MODIFIED', key: '' },
    { dim: 'agent', traceType: '', decision: '', key: 'agent-1' },
    { dim: 'policy', traceType: 'VERIFY', decision: '', key: 'Personal data' },
    { dim: 'policy', traceType: 'VERIFY', decision: '', key: 'Keywords' },
    { dim: 'content_type', traceType: '', decision: '', key: 'document' },
  ]);
});

t.test(
  'counterKeys: an agent counts its requests, keeping only whether they were BLOCKED; its lifecycle records are not requests',
  async (t) => {
    const agentKeys = (traceType: string, decision: string) =>
      counterKeys({ traceType, decision, agentId: 'a1', content: {} }).filter((k) => k.dim === 'agent');
    t.same(agentKeys('VERIFY', 'BLOCKED'), [{ dim: 'agent', traceType: '', decision: 'BLOCKED', key: 'a1' }]);
    t.same(agentKeys('MCP_TOOL_CALL', 'PENDING_APPROVAL'), [{ dim: 'agent', traceType: '', decision: '', key: 'a1' }]);
    t.same(agentKeys('EXTERNAL_EVENT', 'FLAGGED'), [{ dim: 'agent', traceType: '', decision: '', key: 'a1' }]);
    t.same(agentKeys('AGENT_LIFECYCLE', 'POLICY_CHANGE'), []);
    t.same(agentKeys('APPROVAL', 'BLOCKED'), []);
  },
);

t.test(
  'counterKeys: content type is text without attachments, mixed for several kinds, other for a strange one; none outside verify',
  async (t) => {
    const ct = (input: CountedInput) =>
      counterKeys(input)
        .filter((k) => k.dim === 'content_type')
        .map((k) => k.key);
    t.same(ct(verify('PASSED', {})), ['text']);
    t.same(ct(verify('PASSED', { attachments: [] })), ['text']);
    t.same(ct(verify('FLAGGED', { attachments: [{ category: 'image' }] })), ['image']);
    t.same(ct(verify('FLAGGED', { attachments: [{ category: 'image' }, { category: 'audio' }] })), ['mixed']);
    t.same(ct(verify('FLAGGED', { attachments: [{ category: 'NOT A CATEGORY' }] })), ['other']);
    t.same(
      ct({ traceType: 'MCP_TOOL_CALL', decision: 'PASSED', agentId: null, content: { details: { attachments: [{ category: 'image' }] } } }),
      [],
    );
  },
);

t.test('counterKeys: an MCP tool call counts the rule that applied to its tool, except ALLOW', async (t) => {
  const call = (rule: string | null, decision: string) =>
    counterKeys({ traceType: 'MCP_TOOL_CALL', decision, agentId: null, content: { tool: 'delete_file', rule } });
  t.same(
    call('DENY', 'BLOCKED').filter((k) => k.dim === 'policy'),
    [{ dim: 'policy', traceType: 'MCP_TOOL_CALL', decision: '', key: 'MCP DENY: delete_file' }],
  );
  t.same(
    call('REQUIRE_APPROVAL', 'PENDING_APPROVAL')
      .filter((k) => k.dim === 'policy')
      .map((k) => k.key),
    ['MCP REQUIRE_APPROVAL: delete_file'],
  );
  t.same(
    call('LOG_ONLY', 'FLAGGED')
      .filter((k) => k.dim === 'policy')
      .map((k) => k.key),
    ['MCP LOG_ONLY: delete_file'],
  );
  t.same(
    call('ALLOW', 'PASSED').filter((k) => k.dim === 'policy'),
    [],
  );
  t.same(
    call(null, 'BLOCKED').filter((k) => k.dim === 'policy'),
    [],
    'a refusal before any rule (not admitted) names none',
  );
});

t.test('counterKeys: malformed details never throw and long keys are clipped', async (t) => {
  for (const details of [null, 'x', 3, [], { policies: 'x' }, { policies: [null, 7, 'p'] }, { attachments: 'x' }]) {
    t.doesNotThrow(() =>
      counterKeys({ traceType: 'VERIFY', decision: 'PASSED', agentId: null, content: { details } as Record<string, unknown> }),
    );
  }
  const long = counterKeys(verify('BLOCKED', { policies: [{ policy: 'p'.repeat(500) }] }, 'a'.repeat(500)));
  t.ok(long.every((k) => k.key.length <= 200));
});

t.test("counterRows groups a batch into one row per key, in the batch's minute", async (t) => {
  const minute = counterRows('p1', '2025-03-04T10:17:42.123Z', [
    verify('PASSED', {}, 'a'),
    verify('PASSED', {}, 'a'),
    verify('BLOCKED', { policies: [{ policy: 'Secrets' }] }),
  ]);
  t.ok(minute.every((r) => r.grain === 'minute' && r.bucket === '2025-03-04T10:17:00.000Z'));
  t.equal(minute.length, 5, 'two totals, one agent, one policy, one content type');
  const find = (dim: string, decision: string, key: string) =>
    minute.find((r) => r.dim === dim && r.decision === decision && r.key === key)?.count;
  t.equal(find('total', 'PASSED', ''), 2);
  t.equal(find('total', 'BLOCKED', ''), 1);
  t.equal(find('agent', '', 'a'), 2);
  t.equal(minute.find((r) => r.dim === 'policy')?.count, 1);
  t.equal(minute.find((r) => r.dim === 'content_type')?.count, 3);
  t.equal(bucketOf('2025-03-04T10:59:59.999Z', 'hour'), '2025-03-04T10:00:00.000Z');
  t.equal(bucketOf('2025-03-04T10:00:00.000Z', 'minute'), '2025-03-04T10:00:00.000Z');
});

const DECISIONS = ['PASSED', 'FLAGGED', 'BLOCKED', 'MODIFIED', 'PENDING_APPROVAL'];
const CATEGORIES = ['image', 'document', 'audio'];

function randomTrace(i: number): TraceInput {
  const type = i % 7 === 0 ? 'MCP_TOOL_CALL' : i % 11 === 0 ? 'EXTERNAL_EVENT' : 'VERIFY';
  const policies = Array.from({ length: i % 3 }, (_, k) => ({ policy: ['Secrets', 'Personal data', 'Prompt injection'][(i + k) % 3] }));
  const attachments = i % 4 === 0 ? [] : Array.from({ length: i % 3 }, (_, k) => ({ category: CATEGORIES[(i * k) % 3] }));
  return {
    traceType: type,
    decision: DECISIONS[i % DECISIONS.length]!,
    agentId: i % 5 === 0 ? null : `agent-${i % 4}`,
    content: { display: `prompt ${i}`, details: { policies, attachments } },
  };
}

/** Every counter row equals a recount of the traces (and their content) through counterKeys. */
async function sameAsRecount(t: TapTest, sql: Sql): Promise<void> {
  const traces = await sql<
    { project_id: string; created_at: Date; trace_type: string; decision: string; agent_id: string | null; body: Record<string, unknown> }[]
  >`
    select t.project_id, t.created_at, t.trace_type, t.decision, t.agent_id, c.body from traces t join trace_content c on c.trace_id = t.id`;
  const expected = new Map<string, number>();
  for (const tr of traces) {
    const bucket = bucketOf(tr.created_at.toISOString(), 'minute');
    for (const k of counterKeys({ traceType: tr.trace_type, decision: tr.decision, agentId: tr.agent_id, content: tr.body })) {
      const id = [tr.project_id, 'minute', k.dim, bucket, k.traceType, k.decision, k.key].join('|');
      expected.set(id, (expected.get(id) ?? 0) + 1);
    }
  }
  const stored = await sql<
    { project_id: string; grain: string; dim: string; bucket: Date; trace_type: string; decision: string; key: string; count: string }[]
  >`
    select * from trace_counts`;
  const actual = new Map(
    stored.map((r) => [[r.project_id, r.grain, r.dim, r.bucket.toISOString(), r.trace_type, r.decision, r.key].join('|'), Number(r.count)]),
  );
  t.same(Object.fromEntries([...actual].sort()), Object.fromEntries([...expected].sort()), 'every counter row equals the recount');
}

t.test('counters equal a recount from the traces after concurrent appends (writer and domain transactions, two projects)', async (t) => {
  const { sql } = await migratedDatabase(t, 20);
  await sql`insert into projects (id, name) values ('p2', 'two')`;
  const writer = new TraceWriter(sql, 50);
  const viaWriter = Array.from({ length: 600 }, (_, i) => writer.append(i % 3 === 0 ? 'p2' : 'p1', randomTrace(i)));
  const viaTx = Array.from({ length: 40 }, (_, i) =>
    sql.begin((tx) => appendTraces(tx, i % 2 ? 'p1' : 'p2', [randomTrace(1000 + i), randomTrace(2000 + i)])),
  );
  await Promise.all([...viaWriter, ...viaTx]);

  t.equal(Number((await sql`select count(*)::int as n from traces`)[0]!.n), 680);
  await sameAsRecount(t, sql);

  // The same, for the totals, entirely in SQL.
  const diff = await sql`
    with recount as (
      select project_id, date_trunc('minute', created_at) as bucket, trace_type, decision, count(*) as n
      from traces group by 1, 2, 3, 4)
    select * from recount r full join (select * from trace_counts where grain = 'minute' and dim = 'total') c
      using (project_id, bucket, trace_type, decision)
    where r.n is distinct from c.count`;
  t.equal(diff.length, 0, 'totals per minute match a GROUP BY over traces');
});

t.test('traces replayed from the dead-letter queue are counted like any other, once', async (t) => {
  const { sql } = await migratedDatabase(t);
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'gw-counters-dlq-'));
  t.teardown(() => fs.rm(dir, { recursive: true, force: true }));
  const queue = new DeadLetterQueue(path.join(dir, 'dlq'));
  await queue.open();
  const occurredAt = new Date().toISOString();
  await queue.append(
    Array.from({ length: 30 }, (_, i) => {
      const { id: _id, ...trace } = randomTrace(i);
      return {
        v: 1 as const,
        id: randomUUID(),
        project_id: 'p1',
        occurred_at: occurredAt,
        trace: { ...trace, content: { ...trace.content, occurred_at: occurredAt } },
      };
    }),
  );
  await queue.close();
  const writer = new TraceWriter(sql, 7, undefined, { dlq: new DeadLetterQueue(path.join(dir, 'dlq')), retryMs: 20 });
  await writer.start();
  for (let i = 0; i < 300 && writer.status().degraded; i++) await new Promise((r) => setTimeout(r, 50));
  t.equal(writer.status().degraded, false, 'the queue was replayed');
  await writer.append('p1', randomTrace(99));
  await writer.close();
  t.equal(Number((await sql`select count(*)::int as n from traces`)[0]!.n), 31);
  await sameAsRecount(t, sql);
});

t.test('a failed append leaves no counts behind', async (t) => {
  const { sql } = await migratedDatabase(t);
  await t.rejects(
    sql.begin(async (tx) => {
      await appendTraces(tx, 'p1', [randomTrace(1)]);
      throw new Error('domain transaction fails after the append');
    }),
  );
  t.equal((await sql`select * from trace_counts`).length, 0);
});
