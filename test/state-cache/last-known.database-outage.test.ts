// Degraded mode (docs/operations.md, "Degraded mode: deciding while the database is away"): with the database
// closed to connections or its postmaster killed, verify and the MCP proxy keep deciding from the
// state last read, each decision in the dead-letter queue before it is answered or forwarded;
// what cannot be decided is 503 with no body, never a 500; after recovery every acknowledged
// decision is in the chain, gapless, with proofs intact.
import t from 'tap';
import fs from 'node:fs/promises';
import path from 'node:path';
import postgres from 'postgres';
import type { Test } from 'tap';
import { withDatabase } from '../helpers/db.js';
import { startTestGateway, type ApiResponse, type TestGateway } from '../helpers/gateway.js';
import { activeServer, PROXY_ENV, startCountingServer, type ProxyGateway } from '../helpers/mcp-proxy.js';
import { stoppablePostgres } from '../helpers/stoppable-postgres.js';

const SECRET_PROMPT = 'deploy with AKIAZ3MSJV4WWQ5RMNBV please';

type Timed = ApiResponse & { ms: number };

async function timed(call: () => Promise<ApiResponse>): Promise<Timed> {
  const started = performance.now();
  const res = await call();
  return { ...res, ms: performance.now() - started };
}

async function until(what: string, cond: () => Promise<boolean>, ms = 60_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for: ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const verify = (gw: TestGateway, token: string, prompt = 'hello there') =>
  timed(() => gw.api('POST', '/api/v1/verify', { token, body: { prompt } }));

/** A connection of the test's own, opened before the outage and kept through it (ALLOW_CONNECTIONS false refuses new ones to everybody). */
function sideConnection(t: Test, url: string): postgres.Sql {
  const side = postgres(url, { max: 1, onnotice: () => {} });
  t.teardown(() => side.end({ timeout: 1 }));
  return side;
}

/** Closes the test database to new connections (from the server's `postgres` database) and ends the daemon's sessions; reopen() undoes it. */
async function closeDatabase(t: Test, url: string): Promise<{ reopen(): Promise<void> }> {
  const name = new URL(url).pathname.slice(1);
  const admin = postgres(withDatabase(url, 'postgres'), { max: 1, onnotice: () => {} });
  t.teardown(() => admin.end({ timeout: 1 }));
  await admin.unsafe(`alter database "${name}" with allow_connections false`);
  await admin`select pg_terminate_backend(pid) from pg_stat_activity where datname = ${name} and application_name like 'gatewayd:%'`;
  return {
    reopen: async () => {
      await admin.unsafe(`alter database "${name}" with allow_connections true`);
    },
  };
}

function assertDegraded(t: Test, res: Timed, what: string): void {
  t.equal(res.headers.get('x-gateway-trace-persisted'), 'dlq', `${what}: the trace is in the dead-letter queue`);
  t.equal(res.headers.get('x-gateway-status'), 'degraded', `${what}: degraded`);
  t.match(res.headers.get('x-gateway-degraded-subsystems') ?? '', /(^|,)database(,|$)/, `${what}: the database is named`);
}

function assertRefused(t: Test, res: Timed, what: string): void {
  t.equal(res.status, 503, `${what}: 503`);
  t.equal(res.text, '', `${what}: no body`);
  t.equal(res.headers.get('x-gateway-trace-persisted'), 'none', `${what}: nothing recorded`);
  t.match(res.headers.get('x-gateway-degraded-subsystems') ?? '', /database/);
}

/** Every acknowledged trace is in the chain, the chain gapless and intact, each trace's proof intact. */
async function assertRecovered(t: Test, gw: TestGateway, acknowledged: readonly string[]): Promise<void> {
  await until('the dead-letter queue is replayed', async () => (await gw.api('GET', '/healthz', { token: null })).body?.status === 'ok');
  const rows = await gw.db<
    { id: string; seq: string }[]
  >`select id::text as id, sequence_num::text as seq from traces where project_id = 'default' order by sequence_num`;
  t.same(
    rows.map((r) => Number(r.seq)),
    rows.map((_, i) => i + 1),
    'the chain is gapless',
  );
  const ids = new Set(rows.map((r) => r.id));
  t.same(
    acknowledged.filter((id) => !ids.has(id)),
    [],
    'every acknowledged decision is in the chain',
  );
  const chain = await gw.api('GET', '/api/v1/ledger/verify-chain');
  t.equal(chain.status, 200);
  t.equal(chain.body.intact, true, 'verify-chain: intact');
  await gw.gateway.checkpointNow();
  for (const id of acknowledged) {
    const proof = await gw.api('POST', '/api/v1/verify-proof', { body: { trace_id: id } });
    t.equal(proof.body?.intact, true, `proof of ${id} intact`);
    t.equal(proof.body?.checks?.inclusion, 'ok', `${id} is in the signed tree`);
  }
}

function report(t: Test, label: string, answers: readonly Timed[]): void {
  const ms = answers.map((a) => Math.round(a.ms)).sort((a, b) => a - b);
  t.comment(`${label}: ${answers.length} answers during the outage, ms sorted: ${ms.join(' ')} (median ${ms[Math.floor(ms.length / 2)]})`);
  // A very generous bound (the issue saw a 7.3 s median): the mechanism is that nothing waits on a connection attempt.
  for (const a of answers) t.ok(a.ms < 5_000, `answered in ${Math.round(a.ms)} ms`);
  t.same(
    answers.filter((a) => a.status >= 500 && a.status !== 503).map((a) => a.status),
    [],
    'never a 5xx other than 503',
  );
}

t.test(
  'database closed to connections (55000): verify and the proxy decide from memory into the DLQ, refuse what they cannot, recover whole',
  async (t) => {
    const gw = await startTestGateway(t, { env: { ...PROXY_ENV, GATEWAY_CHECKPOINT_INTERVAL_SECONDS: '86400' } });
    const upstream = await startCountingServer(t);
    const server = await activeServer({ gw } as ProxyGateway, upstream.url, { get_weather: 'ALLOW' });
    t.equal((await gw.api('PATCH', '/api/v1/project', { body: { audit_detail_level: 'full' } })).status, 200);
    t.equal(
      (
        await gw.api('POST', '/api/v1/verify/policies', {
          body: { name: 'Hold', detector: 'keywords', action: 'REQUIRE_APPROVAL', config: { words: ['holdme'] } },
        })
      ).status,
      201,
    );
    const [seen, revoked, unseen] = [await gw.key('viewer'), await gw.key('viewer'), await gw.key('viewer')];
    const call = (name: string, token = seen) =>
      timed(() =>
        gw.api('POST', `/api/v1/mcp/proxy/${server.id}`, {
          token,
          body: { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name, arguments: { city: 'Oslo' } } },
        }),
      );

    // Before: the daemon reads what it decides on (and remembers it).
    const acknowledged: string[] = [];
    for (const prompt of ['hello there', SECRET_PROMPT, 'holdme now']) acknowledged.push((await verify(gw, seen, prompt)).body.trace_id);
    t.equal((await verify(gw, revoked)).status, 200);
    t.equal((await call('get_weather')).status, 200);
    t.equal((await call('delete_file')).body.error.data.reason, 'TOOL_REQUIRES_APPROVAL', 'delete_file is held');
    t.equal((await gw.api('GET', '/api/v1/agents')).status, 200);
    const approvalsBefore = (await gw.db`select count(*)::int as n from approvals`)[0]!.n as number;
    const upstreamCallsBefore = upstream.calls();

    const side = sideConnection(t, gw.databaseUrl);
    await side`select 1`;
    const closed = await closeDatabase(t, gw.databaseUrl);

    const answers: Timed[] = [];
    const passed = await verify(gw, seen);
    answers.push(passed);
    t.equal(passed.status, 200, 'a PASSED decision from memory');
    assertDegraded(t, passed, 'PASSED');
    t.equal(passed.body.decision, 'PASSED');
    t.equal(passed.body.sequence_num, undefined, 'no ledger position yet');
    acknowledged.push(passed.body.trace_id);

    const blocked = await verify(gw, seen, SECRET_PROMPT);
    answers.push(blocked);
    t.equal(blocked.status, 403, 'BLOCKED keeps its status');
    assertDegraded(t, blocked, 'BLOCKED');
    acknowledged.push(blocked.body.trace_id);

    for (const [what, res] of [
      ['a credential never seen', await verify(gw, unseen)],
      ['an unknown token', await verify(gw, 'ggp_' + 'x'.repeat(43))],
      ['PENDING_APPROVAL (needs its approval row)', await verify(gw, seen, 'holdme again')],
    ] as const) {
      answers.push(res);
      assertRefused(t, res, what);
    }

    // Revoked meanwhile (on a session that outlived the closing): honoured until the database is back.
    await side`update credentials set revoked_at = now() where token_hash = sha256(convert_to(${revoked}, 'UTF8'))`;
    const stillHonoured = await verify(gw, revoked);
    answers.push(stillHonoured);
    t.equal(stillHonoured.status, 200, 'a key revoked during the outage is still honoured (README: the revocation trade-off)');
    acknowledged.push(stillHonoured.body.trace_id);

    const admin = await timed(() => gw.api('GET', '/api/v1/agents'));
    answers.push(admin);
    t.equal(admin.status, 503, 'an admin route: 503');
    t.equal(admin.body.error.code, 'database_unavailable', 'with the error object');

    const forwarded = await call('get_weather');
    answers.push(forwarded);
    t.equal(forwarded.status, 200);
    t.match(forwarded.body, { jsonrpc: '2.0', id: 7, result: { content: [{ type: 'text' }] } }, 'the call was forwarded');
    assertDegraded(t, forwarded, 'tools/call');
    t.equal(upstream.calls(), upstreamCallsBefore + 1);
    const queued = await fs.readFile(path.join(gw.dataDir, 'dlq', 'traces.log'), 'utf8');
    t.match(queued, /"traceType":"MCP_TOOL_CALL","decision":"PASSED"/, 'its decision is in the dead-letter queue');

    const held = await call('delete_file');
    answers.push(held);
    assertRefused(t, held, 'a call to hold (needs an approval row)');
    t.equal(upstream.calls(), upstreamCallsBefore + 1, 'nothing forwarded');

    const health = await timed(() => gw.api('GET', '/healthz', { token: null }));
    answers.push(health);
    t.equal(health.status, 503);
    report(t, 'closed to connections', answers);

    await closed.reopen();
    await assertRecovered(t, gw, acknowledged);
    t.equal((await gw.db`select count(*)::int as n from approvals`)[0]!.n, approvalsBefore, 'the refused held requests wrote no approval');
    t.equal(
      (await gw.db`select count(*)::int as n from traces where decision = 'PENDING_APPROVAL'`)[0]!.n,
      2,
      'only the two held before the outage are PENDING_APPROVAL',
    );
    t.equal((await gw.db`select count(*)::int as n from traces where trace_type = 'MCP_TOOL_CALL' and decision = 'PASSED'`)[0]!.n, 2);
    const reveal = await gw.api('GET', `/api/v1/traces/${passed.body.trace_id}/reveal`);
    t.equal(reveal.status, 200, 'the raw original of a decision made during the outage was sealed with the remembered data key');
    t.match(JSON.stringify(reveal.body.raw), /hello there/);
    await gw.settled();
    t.equal((await verify(gw, revoked)).status, 401, 'once the database is back the revocation applies');
  },
);

t.test(
  'postmaster killed (SIGKILL): decisions from memory into the DLQ, fast refusals; restarted: replayed, chain and proofs intact',
  async (t) => {
    const pg = await stoppablePostgres(t);
    const gw = await startTestGateway(t, {
      databaseUrl: await pg.createDatabase('gw'),
      env: { GATEWAY_CHECKPOINT_INTERVAL_SECONDS: '86400' },
    });
    const [seen, unseen] = [await gw.key('viewer'), await gw.key('viewer')];
    const acknowledged: string[] = [(await verify(gw, seen)).body.trace_id];

    await pg.kill();
    const answers: Timed[] = [];
    for (let i = 0; i < 8; i += 1) {
      const res = await verify(gw, seen, i % 2 === 0 ? `hello ${i}` : SECRET_PROMPT);
      answers.push(res);
      t.equal(res.status, i % 2 === 0 ? 200 : 403, `decision ${i} from memory`);
      assertDegraded(t, res, `decision ${i}`);
      acknowledged.push(res.body.trace_id);
    }
    for (let i = 0; i < 3; i += 1) {
      const res = await verify(gw, unseen);
      answers.push(res);
      assertRefused(t, res, 'a credential never seen');
    }
    report(t, 'postmaster killed', answers);

    await pg.start();
    await assertRecovered(t, gw, acknowledged);
    t.equal((await verify(gw, unseen)).status, 200, 'the never-seen credential works once the database is back');
  },
);

t.test('decisions from memory are bounded by GATEWAY_OUTAGE_STATE_MAX_AGE_SECONDS; the rate limit counts in memory', async (t) => {
  const gw = await startTestGateway(t, { env: { GATEWAY_OUTAGE_STATE_MAX_AGE_SECONDS: '4' } });
  t.equal((await gw.api('PATCH', '/api/v1/project', { body: { rate_limit_per_minute: 8 } })).status, 200);
  const key = await gw.key('viewer');
  const first = await verify(gw, key);
  t.equal(first.status, 200);
  const readBy = Date.now();
  await closeDatabase(t, gw.databaseUrl);

  const statuses: number[] = [];
  for (let i = 0; i < 12 && !statuses.includes(429); i += 1) {
    const res = await verify(gw, key);
    statuses.push(res.status);
    if (res.status === 429) t.ok(Number(res.headers.get('retry-after')) >= 1, 'Retry-After');
  }
  t.ok(statuses.includes(429), `the limit holds during the outage (${statuses.join(' ')})`);
  t.same(
    statuses.filter((s) => s !== 200 && s !== 429),
    [],
    'nothing but decisions and 429',
  );

  await new Promise((r) => setTimeout(r, Math.max(0, readBy + 4_500 - Date.now())));
  assertRefused(t, await verify(gw, key), 'a credential read more than 4 s ago');
});
