// The slack format: a body Slack's incoming webhooks take ({text, blocks}), the decide command for
// an approval request, and no way for event text to mention @channel, forge a link or leave code.
import t from 'tap';
import { escapeMrkdwn, slackBody } from '../../daemon/delivery/slack.js';

const requested = {
  type: 'approval.requested',
  timestamp: '2026-11-27T17:00:00.000Z',
  data: {
    approval_id: 'appr1',
    kind: 'mcp',
    tool: 'delete_file',
    server_id: 'srv1',
    server_name: 'files',
    agent_id: 'agt1',
    agent_name: 'builder',
    trace_id: 't1',
    arguments: { path: '<!channel> `rm -rf` <https://evil.example|click>' },
    arguments_summary: '{"path":"<!channel> `rm -rf` <https://evil.example|click>"}',
    findings: [{ detector: 'secrets', entity: 'AWS_KEY', path: '$.key', effect: 'BLOCK' }],
    expires_at: '2026-11-27T18:00:00.000Z',
  },
};

t.test('approval.requested: text and blocks with the commands that decide it', async (t) => {
  const body = slackBody(requested);
  t.same(Object.keys(body).sort(), ['blocks', 'text']);
  t.match(body.text, /delete_file on files \(srv1\)/);
  t.match(body.text, /gatewayctl approvals decide appr1 --approve \| --deny/);
  const all = JSON.stringify(body.blocks);
  t.match(all, /gatewayctl approvals decide appr1 --approve --comment/);
  t.match(all, /gatewayctl approvals decide appr1 --deny --comment/);
  t.match(all, /builder \(agt1\)/);
  t.match(all, /AWS_KEY/);
  for (const b of body.blocks) t.ok(['header', 'section', 'context'].includes(b.type as string), `block type ${String(b.type)}`);
});

t.test('event text cannot mention, link or break out of code', async (t) => {
  const all = JSON.stringify(slackBody(requested));
  t.notMatch(all, /<!channel>/, 'no mention');
  t.notMatch(all, /<https:\/\/evil/, 'no link');
  t.match(all, /&lt;!channel&gt;/);
  t.notMatch(all, /`rm -rf`/, 'the backticks of the value do not close the code span');
  t.equal(escapeMrkdwn('a & <b> c'), 'a &amp; &lt;b&gt; c');
});

t.test('every other event is one line and its context', async (t) => {
  const stop = slackBody({
    type: 'project.emergency_stop.activated',
    timestamp: 'ts',
    data: { reason: 'incident <42>', activated_by: 'alice', activated_at: 'ts', approvals_ended: 2 },
  });
  t.equal(stop.text, 'Project emergency stop ACTIVATED by alice: incident &lt;42&gt; (2 open approvals ended)');
  t.equal(stop.blocks.length, 2);
  const changed = slackBody({
    type: 'mcp.tool.changed',
    timestamp: 'ts',
    data: { server_id: 's', server_name: 'files', tool_name: 'read' },
  });
  t.match(changed.text, /Tool read on files \(s\) changed since it was admitted/);
});
