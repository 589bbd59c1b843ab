// The text an MCP host shows for a held or denied call: every fact it needs without error.data.
import t from 'tap';
import { deniedMessage, heldMessage } from '../../../daemon/mcp/proxy/held-message.js';

const base = { tool: 'delete_file', server: 'files', approvalId: 'ap1', expiresAt: '2026-11-27T16:00:00.000Z', waiting: false };

t.test('a new request: id, tool, server, expiry, who decides and how to repeat', async (t) => {
  const text = heldMessage(base);
  for (const part of [
    '"delete_file"',
    '"files"',
    'request ap1',
    'expires 2026-11-27T16:00:00.000Z',
    'gatewayctl approvals decide ap1 --approve',
    'X-Gateway-Approval-Id',
    '_gateway_approval_id',
  ])
    t.ok(text.includes(part), part);
  t.match(heldMessage({ ...base, waiting: true }), /is still waiting for approval ap1 \(expires 2026-11-27T16:00:00\.000Z\)/);
});

t.test('held anew: the presented approval and why it could not serve come first', async (t) => {
  const cases = {
    used: /^Approval old was already used/,
    expired: /^Approval old expired before it was used/,
    arguments_mismatch: /^Approval old was given for other arguments/,
    cancelled: /^Approval old was cancelled/,
    not_found: /^No approval old exists for this call/,
  } as const;
  for (const [why, pattern] of Object.entries(cases)) {
    const text = heldMessage({ ...base, rejected: { id: 'old', why: why as keyof typeof cases } });
    t.match(text, pattern, why);
    t.match(text, /held for approval: request ap1/, `${why}: and the new request`);
  }
});

t.test('denied: by whom and why, clipped; long names are clipped too', async (t) => {
  t.equal(
    deniedMessage({ id: 'ap2', decided_by: 'alice', comment: 'no' }, 'deploy'),
    'Approval ap2 for this call to tool "deploy" was denied by alice ("no"). The call was not forwarded and this approval stays denied; '
      + 'to ask again, make the call without an approval id (a new request is opened).',
  );
  t.match(
    deniedMessage({ id: 'ap2', decided_by: null, comment: null }, 'deploy'),
    /^Approval ap2 for this call to tool "deploy" was denied\. /,
  );
  t.ok(deniedMessage({ id: 'a', decided_by: 'b', comment: 'x'.repeat(5000) }, 't').length < 400);
  t.ok(heldMessage({ ...base, tool: 'y'.repeat(5000) }).length < 900);
});

t.test('a denial never says the caller sent an approval id (in wait mode it sent none)', async (t) => {
  const text = deniedMessage({ id: 'ap2', decided_by: 'alice', comment: null }, 'deploy');
  t.notMatch(text, /this approval id|without the approval id|repeat it/);
  t.match(text, /make the call without an approval id/);
});

t.test('names and ids from the request are quoted short and escaped', async (t) => {
  const text = heldMessage({ ...base, tool: `${'t'.repeat(100)}\u202e`, rejected: { id: `x\u0000${'y'.repeat(200)}`, why: 'not_found' } });
  t.match(text, `tool "${'t'.repeat(64)}"…`);
  t.match(text, 'No approval "x\\u0000');
  t.notMatch(text, /y{65}/);
});
