import t, { type Test } from 'tap';
import { attachAvailability, DatabaseAvailability, DatabaseDownError } from '../../daemon/db/availability.js';
import { isDatabaseUnreachable } from '../../daemon/db/unreachable.js';
import { attachLastKnown, LastKnownState, readOrRecall } from '../../daemon/state-cache/last-known.js';

const LIMITS = { maxAgeMs: 1_000, maxEntries: 3 };
const pgError = (code: string, severity: string) => Object.assign(new Error('refused'), { code, severity });

function pool(t: Test, maxAgeMs = LIMITS.maxAgeMs) {
  let now = 0;
  const sql = {};
  const store = new LastKnownState({ ...LIMITS, maxAgeMs }, () => now);
  // Nothing listens there: a probe (only after markDown) keeps failing, so the availability stays down.
  const availability = new DatabaseAvailability('postgres://gateway@127.0.0.1:1/none', { probeMs: 60_000 });
  t.teardown(() => availability.close());
  attachLastKnown(sql, store);
  attachAvailability(sql, availability);
  return {
    sql,
    store,
    availability,
    advance: (ms: number) => {
      now += ms;
    },
  };
}

t.test('a value is recalled only within its maximum age, never with 0; entries are bounded', async (t) => {
  let now = 0;
  const store = new LastKnownState(LIMITS, () => now);
  store.remember('a', 1);
  now = 1_000;
  t.same(store.recall('a'), { value: 1 }, 'at the maximum age');
  now = 1_001;
  t.equal(store.recall('a'), null, 'older: not decided on');
  for (const k of ['b', 'c', 'd', 'e']) store.remember(k, k);
  t.equal(store.size, 3);
  t.equal(store.recall('b'), null, 'the least recently read went first');
  const never = new LastKnownState({ maxAgeMs: 0, maxEntries: 3 }, () => 0);
  never.remember('a', 1);
  t.equal(never.recall('a'), null, 'GATEWAY_OUTAGE_STATE_MAX_AGE_SECONDS=0: nothing is decided from memory');
});

t.test('readOrRecall: the database while it answers; the last value while it is unreachable; otherwise its error', async (t) => {
  const { sql, store, availability, advance } = pool(t);
  t.equal(await readOrRecall(sql, 'k', async () => 'v1'), 'v1');
  t.equal(
    await readOrRecall(
      sql,
      'gone',
      async () => null,
      (v) => v !== null,
    ),
    null,
  );
  t.equal(store.recall('gone'), null, 'a value keep() refuses is not remembered');

  const refused = pgError('55000', 'FATAL');
  t.equal(
    await readOrRecall(sql, 'k', async () => {
      throw refused;
    }),
    'v1',
    'unreachable: the value last read',
  );
  t.equal(availability.down, true, 'and the database is known down');

  let asked = 0;
  t.equal(
    await readOrRecall(sql, 'k', async () => {
      asked += 1;
      return 'v2';
    }),
    'v1',
    'known down: the database is not asked',
  );
  t.equal(asked, 0);
  await t.rejects(
    readOrRecall(sql, 'never-read', async () => 'x'),
    DatabaseDownError,
    'never read: refused',
  );
  advance(1_001);
  await t.rejects(
    readOrRecall(sql, 'k', async () => 'x'),
    DatabaseDownError,
    'read too long ago: refused',
  );
});

t.test('readOrRecall: any other database error reaches the caller and marks nothing down', async (t) => {
  const { sql, availability } = pool(t);
  await readOrRecall(sql, 'k', async () => 'v1');
  const constraint = pgError('23505', 'ERROR');
  await t.rejects(
    readOrRecall(sql, 'k', async () => {
      throw constraint;
    }),
    constraint,
  );
  t.equal(availability.down, false);
  const pool0 = {};
  t.equal(await readOrRecall(pool0, 'k', async () => 'plain'), 'plain', 'a pool without a store just loads');
});

t.test('a connection refused at start-up is unreachable; the same SQLSTATE as an ordinary error is not', async (t) => {
  t.equal(isDatabaseUnreachable(pgError('55000', 'FATAL')), true, 'ALLOW_CONNECTIONS false');
  t.equal(isDatabaseUnreachable(pgError('53300', 'FATAL')), true, 'CONNECTION LIMIT 0 / max_connections');
  t.equal(isDatabaseUnreachable(pgError('55000', 'ERROR')), false, 'object not in prerequisite state (a query error)');
  t.equal(isDatabaseUnreachable(new DatabaseDownError()), true, 'known down');
});
