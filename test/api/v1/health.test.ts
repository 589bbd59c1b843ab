import t from 'tap';
import postgres from 'postgres';
import { adminDatabaseUrl } from '../../helpers/db.js';
import { startTestGateway } from '../../helpers/gateway.js';
import type { TraceWriter } from '../../../daemon/ledger/trace-writer.js';

t.test('/healthz needs no credentials and answers ok', async (t) => {
  const gw = await startTestGateway(t);
  const res = await gw.api('GET', '/healthz', { token: null });
  t.equal(res.status, 200);
  t.same(res.body, { status: 'ok' });
});

t.test('/healthz is 503 naming the database when it is gone', async (t) => {
  const gw = await startTestGateway(t);
  const name = new URL(gw.databaseUrl).pathname.slice(1);
  const admin = postgres(adminDatabaseUrl(), { max: 1, onnotice: () => {} });
  t.teardown(() => admin.end());
  await admin.unsafe(`drop database ${name} with (force)`);
  const res = await gw.api('GET', '/healthz', { token: null });
  t.equal(res.status, 503);
  t.same(res.body.failing, ['database']);
  const api = await gw.api('GET', '/api/v1/project');
  t.equal(api.status, 500, 'an API call fails closed');
  t.equal(api.body.error.code, 'internal_error');
});

t.test('/metrics: requests by route and status, trace batches, pool use', async (t) => {
  const gw = await startTestGateway(t);
  await gw.api('GET', '/api/v1/project');
  await gw.api('GET', '/api/v1/project', { token: null });
  // The daemon's own writer feeds the trace metrics.
  const writer: TraceWriter = gw.gateway.writer;
  await Promise.all([1, 2, 3].map((i) => writer.append('default', { traceType: 'TEST', decision: 'PASSED', content: { i } })));
  const res = await fetch(gw.url + '/metrics');
  const text = await res.text();
  t.equal(res.status, 200);
  t.match(res.headers.get('content-type'), /text\/plain/);
  t.match(text, /gateway_http_requests_total\{method="GET",route="\/api\/v1\/project",status="200"\} 1/);
  t.match(text, /gateway_http_requests_total\{method="GET",route="\/api\/v1\/project",status="401"\} 1/);
  t.match(text, /gateway_http_request_duration_seconds_bucket\{le="[^"]+",method="GET",route="\/api\/v1\/project",status="200"\}/);
  t.match(text, /gateway_trace_batch_size_sum [1-9]/);
  t.match(text, /gateway_trace_batch_commit_duration_seconds_count [1-9]/);
  t.match(text, /gateway_trace_append_duration_seconds_count 3/);
  t.match(text, /gateway_db_pool_max 20/);
  t.match(text, /gateway_db_pool_connections\{state="(idle|active)"\} [1-9]/);
});
