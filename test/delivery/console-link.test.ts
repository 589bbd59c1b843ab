// An approval request's notification links its page in the web console; other events are unchanged
// (daemon/delivery/console-link.ts), and the Slack rendering shows the link without letting it end
// Slack's link syntax.
import t from 'tap';
import { withConsoleLink } from '../../daemon/delivery/console-link.js';
import { renderBody } from '../../daemon/delivery/deliver.js';
import { slackBody } from '../../daemon/delivery/slack.js';

const requested = { type: 'approval.requested', timestamp: 'ts', data: { approval_id: 'a b/1', kind: 'mcp', tool: 'x' } };

t.test("an approval request gets console_url with its id; without the console's address, or for another event, nothing", async (t) => {
  t.same(withConsoleLink(requested, 'https://gw.example/console/'), {
    ...requested.data,
    console_url: 'https://gw.example/console/#approval=a%20b%2F1',
  });
  t.equal(withConsoleLink(requested, null), requested.data);
  const decided = { type: 'approval.decided', timestamp: 'ts', data: { approval_id: 'a1' } };
  t.equal(withConsoleLink(decided, 'https://gw.example/console/'), decided.data);
});

t.test('the delivered bytes carry it, in the standard body and as a Slack link', async (t) => {
  const standard = JSON.parse(renderBody('standard', requested, 'https://gw.example/console/'));
  t.equal(standard.data.console_url, 'https://gw.example/console/#approval=a%20b%2F1');
  const slack = renderBody('slack', requested, 'https://gw.example/console/');
  t.match(slack, '<https://gw.example/console/#approval=a%20b%2F1|Open this request in the console>');
  t.notMatch(renderBody('standard', requested), /console_url/, "no link while the console's address is unknown");
});

t.test('a link cannot break out of Slack link syntax', async (t) => {
  const body = slackBody({ ...requested, data: { ...requested.data, console_url: 'https://gw.example/c/#x|<!channel>' } });
  const all = JSON.stringify(body.blocks);
  t.notMatch(all, /<!channel>/);
  t.match(all, /<https:\/\/gw\.example\/c\/#x%7C%3C!channel%3E\|Open this request in the console>/);
});
