import t from 'tap';
import { agentGate } from '../../daemon/agents/gate.js';

t.test('only ACTIVE agents act; each other status has its own reason', async (t) => {
  t.same(agentGate('ACTIVE'), { ok: true, value: { anonymous: false } });
  const expected = {
    SUSPENDED: 'AGENT_EMERGENCY_STOP',
    PAUSED: 'AGENT_PAUSED',
    PENDING_APPROVAL: 'AGENT_PENDING_APPROVAL',
    REJECTED: 'AGENT_REJECTED',
    REVOKED: 'AGENT_REVOKED',
  } as const;
  for (const [status, reason] of Object.entries(expected)) {
    const v = agentGate(status as keyof typeof expected);
    t.equal(v.ok, false, status);
    if (!v.ok) {
      t.equal(v.code, reason, status);
      t.equal(v.detail.rpcCode, -32003, `${status} is a JSON-RPC -32003 refusal on the proxy`);
    }
  }
});

t.test('an id that names no agent is anonymous traffic', async (t) => {
  t.same(agentGate(null), { ok: true, value: { anonymous: true } });
});
