import t from 'tap';
import { AGENT_OPERATIONS, AGENT_STATUSES, nextStatus, operationTo, TRANSITIONS } from '../../daemon/agents/lifecycle.js';

const TABLE: [string, string, string][] = [
  ['PENDING_APPROVAL', 'approve', 'ACTIVE'],
  ['PENDING_APPROVAL', 'reject', 'REJECTED'],
  ['ACTIVE', 'pause', 'PAUSED'],
  ['PAUSED', 'resume', 'ACTIVE'],
  ['ACTIVE', 'suspend', 'SUSPENDED'],
  ['SUSPENDED', 'reactivate', 'ACTIVE'],
  ...['PENDING_APPROVAL', 'ACTIVE', 'PAUSED', 'SUSPENDED', 'REJECTED'].map((s): [string, string, string] => [s, 'revoke', 'REVOKED']),
];

t.test('the table is exactly the specification', async (t) => {
  for (const status of AGENT_STATUSES) {
    for (const op of AGENT_OPERATIONS) {
      const row = TABLE.find(([from, o]) => from === status && o === op);
      t.equal(nextStatus(status, op), row ? row[2] : null, `${status} --${op}->`);
    }
  }
  t.same(AGENT_OPERATIONS.sort(), ['approve', 'pause', 'reactivate', 'reject', 'resume', 'revoke', 'suspend']);
});

t.test('REVOKED is terminal', async (t) => {
  for (const op of AGENT_OPERATIONS) t.equal(nextStatus('REVOKED', op), null, op);
  for (const s of AGENT_STATUSES) t.equal(operationTo('REVOKED', s), null, s);
  t.notOk((TRANSITIONS.revoke.from as readonly string[]).includes('REVOKED'));
});

t.test('a PATCH status maps to the one operation that reaches it, or none', async (t) => {
  t.equal(operationTo('PENDING_APPROVAL', 'ACTIVE'), 'approve');
  t.equal(operationTo('SUSPENDED', 'ACTIVE'), 'reactivate');
  t.equal(operationTo('PAUSED', 'ACTIVE'), 'resume');
  t.equal(operationTo('ACTIVE', 'REVOKED'), 'revoke');
  t.equal(operationTo('SUSPENDED', 'PAUSED'), null, 'no back door from SUSPENDED to PAUSED');
  t.equal(operationTo('REJECTED', 'ACTIVE'), null);
  t.equal(operationTo('PENDING_APPROVAL', 'SUSPENDED'), null);
});
