import t from 'tap';
import { governanceHeaders } from '../../daemon/http/governance-headers.js';
import { TraceNotPersistedError } from '../../daemon/ledger/dlq-outcome.js';

t.test('in the ledger and nothing degraded: healthy, no subsystem header', async (t) => {
  t.same(governanceHeaders({ persisted: 'db', degradedSubsystems: [] }), {
    'X-Gateway-Status': 'healthy',
    'X-Gateway-Trace-Persisted': 'db',
  });
});

t.test('in the dead-letter queue: degraded, trace_store named even when the caller forgot it', async (t) => {
  t.same(governanceHeaders({ persisted: 'dlq', degradedSubsystems: [] }), {
    'X-Gateway-Status': 'degraded',
    'X-Gateway-Trace-Persisted': 'dlq',
    'X-Gateway-Degraded-Subsystems': 'trace_store',
  });
  t.same(
    governanceHeaders({ persisted: 'dlq', degradedSubsystems: ['trace_store'] })['X-Gateway-Degraded-Subsystems'],
    'trace_store',
    'named once',
  );
});

t.test('not persisted (the 503): the typed error gives the headers itself', async (t) => {
  const err = new TraceNotPersistedError(['trace_store', 'trace_dlq'], new Error('ENOSPC'));
  t.same(governanceHeaders(err), {
    'X-Gateway-Status': 'degraded',
    'X-Gateway-Trace-Persisted': 'none',
    'X-Gateway-Degraded-Subsystems': 'trace_store,trace_dlq',
  });
});

t.test('no trace written (a refusal before any decision) on a healthy gateway: healthy, persisted none', async (t) => {
  t.same(governanceHeaders({ persisted: 'none', degradedSubsystems: [] }), {
    'X-Gateway-Status': 'healthy',
    'X-Gateway-Trace-Persisted': 'none',
  });
});

t.test('other degraded subsystems join the list, in order, without duplicates', async (t) => {
  const h = governanceHeaders({ persisted: 'db', degradedSubsystems: ['trace_store'] }, ['pii_detector', 'trace_store']);
  t.equal(h['X-Gateway-Status'], 'degraded');
  t.equal(h['X-Gateway-Degraded-Subsystems'], 'trace_store,pii_detector');
});

t.test('a subsystem name that is not a plain token never reaches a header', async (t) => {
  t.throws(() => governanceHeaders({ persisted: 'db', degradedSubsystems: ['x\r\nSet-Cookie: a=b'] }), RangeError);
  t.throws(() => governanceHeaders({ persisted: 'db', degradedSubsystems: [] }, ['a,b']), RangeError);
});
