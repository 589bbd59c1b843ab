// contentRules chooses once per loaded list of policies and call shape: the same list gives the
// same (frozen) rules, a new list (a policy changed: the state cache loads a new one) is read anew.
import t from 'tap';
import { contentRules, loadedContentPolicy } from '../../../daemon/mcp/content/effective.js';

const policy = (action: 'OFF' | 'FLAG', tool: string | null) =>
  loadedContentPolicy({
    id: `p-${action}-${tool}`,
    project_id: 'proj',
    server_id: 'srv',
    tool_name: tool,
    direction: 'results',
    detector: 'secrets',
    action,
    config: {},
    created_at: new Date(0).toISOString(),
    updated_at: new Date(0).toISOString(),
  } as never);

t.test('the same list gives the same rules; a new list is read anew', async (t) => {
  const before = [policy('OFF', null)];
  const first = contentRules(before, 'srv', 'echo', 'results');
  t.equal(contentRules(before, 'srv', 'echo', 'results'), first, 'chosen once');
  t.ok(Object.isFrozen(first));
  t.notOk(
    first.some((r) => r.detector === 'secrets'),
    'the server policy turns secrets off',
  );
  t.ok(contentRules(before, 'srv', null, 'results').every((r) => r.detector !== 'secrets'));
  t.ok(
    contentRules(before, 'other', 'echo', 'results').some((r) => r.detector === 'secrets'),
    'another server: the default',
  );
  const after = [policy('OFF', null), policy('FLAG', 'echo')];
  const rules = contentRules(after, 'srv', 'echo', 'results');
  t.equal(rules.find((r) => r.detector === 'secrets')?.action, 'FLAG', 'the tool policy of the new list wins');
  t.notOk(
    contentRules(after, 'srv', 'other-tool', 'results').some((r) => r.detector === 'secrets'),
    'per tool name',
  );
  t.not(contentRules(after, 'srv', 'echo', 'arguments'), rules, 'per direction');
});
