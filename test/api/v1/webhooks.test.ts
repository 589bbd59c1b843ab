// POST /api/v1/webhooks/ingest against a real gatewayd: only an active extension key outside an
// emergency stop gets in, every refusal writes nothing, accepted events are traces (extension,
// event time, payload, mapped decision), and retries with one event id create one trace.
import t from 'tap';
import { decisionOfEvent, eventTime } from '../../../daemon/webhooks/events.js';
import { startCcServer } from '../../helpers/cc-server.js';

const cc = await startCcServer(t);
const gw = cc.gw;
const createExtension = async (name: string) =>
  (await gw.api('POST', '/api/v1/extensions', { body: { name } })).body as { id: string; api_key: string };
const ext = await createExtension('browser guard');
const ingest = (body: unknown, token: string | null = ext.api_key, headers: Record<string, string> = {}) =>
  cc.call('POST', '/api/v1/webhooks/ingest', { body, token, headers });
const written = async () =>
  (
    await gw.db`
  select (select count(*) from traces)::int as traces, (select count(*) from trace_content)::int as content,
         (select count(*) from webhook_deliveries)::int as deliveries, (select coalesce(sum(count), 0)::int from trace_counts) as counts`
  )[0];
const lookup = async (id: string) => (await gw.api('GET', `/api/v1/traces?id=${id}`)).body.traces[0];

t.test('event types map to decisions by their last word; an event time is used only when valid', async (t) => {
  const cases = {
    'dlp.prompt.blocked': 'BLOCKED',
    'policy:denied': 'BLOCKED',
    'upload/rejected': 'BLOCKED',
    'x.BLOCK': 'BLOCKED',
    'guard.warned': 'FLAGGED',
    'guard.flagged': 'FLAGGED',
    'guard.warning': 'FLAGGED',
    'dlp.redacted': 'MODIFIED',
    'dlp.masked': 'MODIFIED',
    login: 'PASSED',
    'blocked.lifted': 'PASSED',
    'session.started': 'PASSED',
  };
  for (const [type, decision] of Object.entries(cases)) t.equal(decisionOfEvent(type), decision, type);
  const now = new Date('2025-06-01T12:00:00Z');
  t.equal(eventTime('2025-06-01T11:00:00+02:00', now), '2025-06-01T09:00:00.000Z');
  t.equal(eventTime('2025-06-01T12:04:00Z', now), '2025-06-01T12:04:00.000Z', 'within the clock skew');
  for (const bad of ['2025-06-02T12:00:00Z', '1999-12-31T23:59:59Z', 'yesterday', '2025-06-01', 1748779200000, null])
    t.equal(eventTime(bad, now), null, String(bad));
});

t.test(
  'an extension key posts an event: 202 with its trace; the trace carries the extension, the event time and the payload',
  async (t) => {
    const res = await ingest({
      event_type: 'dlp.prompt.blocked',
      source: 'chrome-extension',
      timestamp: '2025-01-02T03:04:05Z',
      user: 'u-17',
      details: { url: 'https://chat.example/x' },
    });
    t.equal(res.status, 202);
    t.same(Object.keys(res.body).sort(), ['decision', 'integrity_hash', 'sequence_num', 'should_anchor', 'trace_id']);
    t.match(res.body, { decision: 'BLOCKED', should_anchor: false, sequence_num: Number, integrity_hash: /^sha256:[0-9a-f]{64}$/ });
    t.equal(res.headers.get('idempotent-replayed'), null);
    const trace = await lookup(res.body.trace_id);
    t.match(trace, {
      trace_type: 'EXTERNAL_EVENT',
      decision: 'BLOCKED',
      environment: 'prod',
      action_name: 'dlp.prompt.blocked',
      sequence_num: res.body.sequence_num,
    });
    t.match(trace.reason, new RegExp(`extension ${ext.id}`));
    t.same(trace.payloads.details, {
      extension: { id: ext.id, name: 'browser guard' },
      event: { type: 'dlp.prompt.blocked', source: 'chrome-extension', id: null },
      payload: { timestamp: '2025-01-02T03:04:05Z', user: 'u-17', details: { url: 'https://chat.example/x' } },
    });
    t.equal(trace.payloads.occurred_at, '2025-01-02T03:04:05.000Z', "the event's own time");
    t.equal(trace.payloads.occurred_at_from, 'event');
    t.ok(Date.now() - Date.parse(trace.timestamp) < 60_000, "created_at is the ledger's");
    t.equal(trace.display_content, '', 'a blocked event shows nothing');

    const later = await ingest({ event_type: 'guard.warned', source: 'chrome-extension', timestamp: '2999-01-01T00:00:00Z' });
    const warned = await lookup(later.body.trace_id);
    t.match(warned, { decision: 'FLAGGED', display_content: 'chrome-extension: guard.warned' });
    t.equal(warned.payloads.occurred_at_from, 'received', 'a timestamp in the future is not used');
    t.equal((await gw.api('PATCH', '/api/v1/project', { body: { attestation_enabled: true } })).status, 200);
    t.equal(
      (await ingest({ event_type: 'login', source: 'sso' })).body.should_anchor,
      true,
      'eligible for anchoring when attestation is on',
    );
  },
);

t.test('every refusal writes nothing', async (t) => {
  const revoked = await createExtension('old');
  await gw.api('DELETE', `/api/v1/extensions/${revoked.id}`);
  const projectKey = (await gw.api('POST', '/api/v1/keys', { body: { name: 'ci', role: 'admin' } })).body.key;
  const ok = { event_type: 'login', source: 'sso' };
  const cases: [string, () => ReturnType<typeof ingest>, number, string][] = [
    ['no credentials', () => ingest(ok, null), 401, 'unauthorized'],
    ['a user token (admin)', () => ingest(ok, gw.adminToken), 403, 'forbidden'],
    ['a project key (admin)', () => ingest(ok, projectKey), 403, 'forbidden'],
    ['a revoked extension key', () => ingest(ok, revoked.api_key), 401, 'unauthorized'],
    ['no event_type', () => ingest({ source: 'sso' }), 400, 'validation_error'],
    ['event_type not a string', () => ingest({ event_type: 7, source: 'sso' }), 400, 'validation_error'],
    ['no source', () => ingest({ event_type: 'login' }), 400, 'validation_error'],
    ['empty body', () => ingest(undefined), 400, 'validation_error'],
    ['an array', () => ingest([ok]), 400, 'validation_error'],
    ['not JSON', () => ingest('{"event_type":'), 400, 'validation_error'],
    ['payload over 64 KiB', () => ingest({ ...ok, blob: 'x'.repeat(70_000) }), 413, 'payload_too_large'],
    ['a NUL character', () => ingest({ ...ok, note: 'a\u0000b' }), 400, 'validation_error'],
    ['a bad Idempotency-Key', () => ingest(ok, ext.api_key, { 'idempotency-key': 'k'.repeat(300) }), 400, 'validation_error'],
  ];
  for (const [name, call, status, code] of cases) {
    const before = await written();
    const res = await call();
    t.equal(res.status, status, name);
    t.equal(res.body?.error?.code, code, name);
    t.same(await written(), before, `${name}: nothing written`);
  }
  t.match((await ingest({ source: 'sso' })).body.error.message, /event_type/, 'the failing field is named');

  t.equal((await gw.api('POST', '/api/v1/project/emergency-stop', { body: { reason: 'test' } })).status, 200);
  const before = await written();
  const stopped = await ingest(ok);
  t.equal(stopped.status, 403);
  t.equal(stopped.body.error.code, 'project_emergency_stopped');
  t.same(await written(), before, 'during the stop: nothing written');
  t.equal((await gw.api('POST', '/api/v1/project/emergency-stop/lift', { body: {} })).status, 200);
  t.equal((await ingest(ok)).status, 202, 'accepted again once lifted');
});

t.test(
  'idempotency: parallel deliveries with one event_id create one trace; the Idempotency-Key header works alike; keys belong to their extension',
  async (t) => {
    const before = await written();
    const deliveries = await Promise.all(
      Array.from({ length: 20 }, () => ingest({ event_type: 'file.upload.blocked', source: 'edge', event_id: 'evt-1', n: 1 })),
    );
    t.ok(deliveries.every((d) => d.status === 202));
    t.equal(new Set(deliveries.map((d) => d.body.trace_id)).size, 1, 'one trace id for all');
    t.equal(new Set(deliveries.map((d) => d.body.sequence_num)).size, 1);
    t.equal(deliveries.filter((d) => d.headers.get('idempotent-replayed') === null).length, 1, 'exactly one delivery created it');
    let after = await written();
    t.equal(after.traces, before.traces + 1);
    t.equal(after.deliveries, before.deliveries + 1);

    const retry = await ingest({ event_type: 'file.upload.flagged', source: 'edge', event_id: 'evt-1', n: 2 });
    t.same(retry.body, deliveries[0]!.body, 'a later retry with another body still answers the first trace');
    t.equal(retry.headers.get('idempotent-replayed'), 'true');

    const viaHeader = await Promise.all(
      Array.from({ length: 10 }, () => ingest({ event_type: 'login', source: 'sso' }, ext.api_key, { 'idempotency-key': 'delivery-42' })),
    );
    t.equal(new Set(viaHeader.map((d) => d.body.trace_id)).size, 1);
    const other = await createExtension('second');
    const theirs = await ingest({ event_type: 'file.upload.blocked', source: 'edge', event_id: 'evt-1' }, other.api_key);
    t.not(theirs.body.trace_id, deliveries[0]!.body.trace_id, "another extension's evt-1 is another event");
    t.match((await lookup(theirs.body.trace_id)).payloads.details.extension, { id: other.id });
    after = await written();
    t.equal(after.traces, before.traces + 3);

    const plain = await Promise.all([ingest({ event_type: 'login', source: 'sso' }), ingest({ event_type: 'login', source: 'sso' })]);
    t.not(plain[0]!.body.trace_id, plain[1]!.body.trace_id, 'without a key every delivery is a new trace');
  },
);

t.test('events are counted by the command center like any trace', async (t) => {
  const body = (await cc.call('GET', '/api/v1/command-center?range=1h')).body;
  const events = Number((await gw.db`select count(*)::int as n from traces where trace_type = 'EXTERNAL_EVENT'`)[0]!.n);
  t.equal(
    body.kpis.traces.value,
    events + Number((await gw.db`select count(*)::int as n from traces where trace_type <> 'EXTERNAL_EVENT'`)[0]!.n),
  );
  t.equal(body.contract.used_requests, events, 'external events are billable requests');
});
