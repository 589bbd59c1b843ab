import t from 'tap';
import { RULES, type Rule } from '../../../shared/agent-schemas.js';
import { PROFILE_MODELS } from '../../../daemon/agents/capability.js';
import { effectiveRule, strictestOf } from '../../../daemon/mcp/rules/effective-rule.js';

const rank = (r: Rule) => RULES.indexOf(r);
const max = (rules: Rule[]) => rules.reduce((a, b) => (rank(a) >= rank(b) ? a : b));

t.test('strictest wins: DENY > REQUIRE_APPROVAL > LOG_ONLY > ALLOW', async (t) => {
  t.same(RULES, ['ALLOW', 'LOG_ONLY', 'REQUIRE_APPROVAL', 'DENY']);
  t.equal(strictestOf([]), null);
  for (const a of RULES) for (const b of RULES) t.equal(strictestOf([a, b]), max([a, b]), `${a}+${b}`);
});

t.test('every combination of server-wide rule (or none) and agent rule (or none)', async (t) => {
  const serverOptions: (Rule | null)[] = [null, ...RULES];
  const agentOptions: (Rule | null)[] = [null, 'REQUIRE_APPROVAL', 'DENY'];
  for (const server of serverOptions) {
    for (const agent of agentOptions) {
      const got = effectiveRule({ serverWide: server ? [server] : [], agentRules: agent ? [agent] : [] });
      const base: Rule = server ?? 'REQUIRE_APPROVAL';
      const expected = agent && rank(agent) > rank(base) ? agent : base;
      t.equal(got.rule, expected, `server ${server ?? '-'} agent ${agent ?? '-'}`);
      t.ok(rank(got.rule) >= rank(base), 'an agent rule never loosens');
      const source = agent && rank(agent) > rank(base) ? 'agent_rule' : server ? 'tool_rule' : 'no_rule';
      t.equal(got.source, source);
    }
  }
});

t.test('no rule means held for approval', async (t) => {
  t.same(effectiveRule({ serverWide: [] }), { rule: 'REQUIRE_APPROVAL', source: 'no_rule' });
});

t.test('several server-wide rules: the strictest; the capability model only tightens', async (t) => {
  t.equal(effectiveRule({ serverWide: ['ALLOW', 'LOG_ONLY'] }).rule, 'LOG_ONLY');
  const strict = PROFILE_MODELS.balanced;
  const safe = PROFILE_MODELS.safe;
  for (const server of RULES) {
    for (const [risk, action] of [
      ['low', 'read'],
      ['critical', 'delete'],
      ['high', 'execute'],
      [null, null],
    ] as const) {
      for (const model of [strict, safe]) {
        const got = effectiveRule({ serverWide: [server], capability: { model, tool: { riskLevel: risk, action } } });
        t.ok(rank(got.rule) >= rank(server), `${server} with ${risk}/${action} is never loosened`);
      }
    }
  }
  const denied = effectiveRule({ serverWide: ['ALLOW'], capability: { model: safe, tool: { riskLevel: 'critical', action: 'delete' } } });
  t.same(denied, { rule: 'DENY', source: 'capability_model' });
});
