// The event catalogue's builders: display-safe data from what each source holds, bounded.
import t from 'tap';
import { NOTIFICATION_EVENTS } from '../../shared/notification-schemas.js';
import {
  ARGUMENTS_MAX_CHARS,
  anchoringDegraded,
  approvalDecided,
  approvalExpired,
  approvalRequested,
  scanFailed,
  stopActivated,
  toolChanged,
} from '../../daemon/notifications/events.js';

const approval = {
  id: 'appr1',
  kind: 'mcp' as const,
  trace_id: '00000000-0000-4000-8000-000000000001',
  server_id: 'srv1',
  tool_name: 'delete_file',
  agent_id: 'agt1',
  credential_id: 'key1',
  status: 'PENDING',
  expires_at: '2026-11-27T18:00:00.000Z',
  decided_at: null,
  decided_by: null,
  comment: null,
  findings: [{ detector: 'secrets', entity: 'AWS_KEY', path: '$.key', effect: 'BLOCK' }],
};

t.test('the catalogue names every event of the issue', async (t) => {
  t.same([...NOTIFICATION_EVENTS].sort(), [
    'anchoring.degraded',
    'approval.decided',
    'approval.expired',
    'approval.requested',
    'mcp.scan.failed',
    'mcp.tool.changed',
    'project.emergency_stop.activated',
    'project.emergency_stop.lifted',
  ]);
});

t.test(
  'approval.requested: the key id of the call, the masked arguments of the trace, a summary, findings, expiry; names left to emit',
  async (t) => {
    const data = approvalRequested(approval, { arguments: { path: '/etc/passwd', key: '[AWS_ACCESS_KEY_1]' }, server_name: 'files' });
    t.same(data, {
      approval_id: 'appr1',
      kind: 'mcp',
      tool: 'delete_file',
      server_id: 'srv1',
      agent_id: 'agt1',
      trace_id: approval.trace_id,
      credential_id: 'key1',
      server_name: 'files',
      agent_name: null,
      arguments: { path: '/etc/passwd', key: '[AWS_ACCESS_KEY_1]' },
      arguments_summary: '{"path":"/etc/passwd","key":"[AWS_ACCESS_KEY_1]"}',
      findings: approval.findings,
      expires_at: approval.expires_at,
    });
    const big = approvalRequested(approval, { arguments: { text: 'x'.repeat(ARGUMENTS_MAX_CHARS) }, server_name: 'files' });
    t.equal(big.arguments, null, 'arguments too long for a notification are left out');
    t.equal(big.arguments_truncated, true);
    t.ok((big.arguments_summary as string).length <= 200, 'the summary stays, cut');
    const verify = approvalRequested({ ...approval, kind: 'verify', server_id: null, tool_name: null }, { arguments: { no: 1 } });
    t.equal(verify.arguments, null, 'a held prompt carries no arguments: the trace id leads to it');
  },
);

t.test('approval.decided and approval.expired', async (t) => {
  t.match(approvalDecided({ ...approval, status: 'DENIED', decided_by: 'alice', decided_at: 'x', comment: 'no' }), {
    approval_id: 'appr1',
    approved: false,
    status: 'DENIED',
    decided_by: 'alice',
    comment: 'no',
  });
  t.match(approvalDecided({ ...approval, status: 'APPROVED' }), { approved: true });
  t.same(approvalExpired(approval), {
    approval_id: 'appr1',
    kind: 'mcp',
    tool: 'delete_file',
    server_id: 'srv1',
    agent_id: 'agt1',
    trace_id: approval.trace_id,
    expires_at: approval.expires_at,
  });
});

t.test('the other builders', async (t) => {
  t.same(toolChanged({ id: 's', name: 'files' }, { id: 'tl', name: 'read', approved_hash: 'sha256:a' }, 'sha256:b'), {
    server_id: 's',
    server_name: 'files',
    tool_id: 'tl',
    tool_name: 'read',
    approved_fingerprint: 'sha256:a',
    current_fingerprint: 'sha256:b',
  });
  t.equal((scanFailed({ id: 's', name: 'n' }, 'unreachable', 'd'.repeat(2000)).detail as string).length, 500);
  t.same(stopActivated({ reason: 'r', activated_by: 'alice', activated_at: 't', approvals_ended: 3 }), {
    reason: 'r',
    activated_by: 'alice',
    activated_at: 't',
    approvals_ended: 3,
  });
  t.same(anchoringDegraded({ epoch: '7', state: 'FAILED', reason: 'no receipt' }), { epoch: 7, state: 'FAILED', reason: 'no receipt' });
});
