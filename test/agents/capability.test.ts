import t from 'tap';
import {
  capabilityModelSchema,
  capabilityRule,
  DEFAULT_PROFILE,
  PROFILE_MODELS,
  RULES,
  strictest,
  tighten,
} from '../../daemon/agents/capability.js';

const tool = (riskLevel: string | null, action: string | null) => ({ riskLevel, action });

t.test('the default profile is the strictest one (fail closed)', async (t) => {
  t.equal(DEFAULT_PROFILE, 'safe');
  t.equal(capabilityRule(PROFILE_MODELS.safe, tool(null, null)), 'DENY');
});

t.test('each profile as documented', async (t) => {
  const safe = PROFILE_MODELS.safe;
  t.equal(capabilityRule(safe, tool('low', 'read')), 'ALLOW');
  t.equal(capabilityRule(safe, tool('low', 'write')), 'REQUIRE_APPROVAL');
  t.equal(capabilityRule(safe, tool('medium', 'read')), 'REQUIRE_APPROVAL');
  t.equal(capabilityRule(safe, tool('low', 'delete')), 'DENY');
  t.equal(capabilityRule(safe, tool('critical', 'read')), 'DENY');
  const balanced = PROFILE_MODELS.balanced;
  t.equal(capabilityRule(balanced, tool('medium', 'write')), 'ALLOW');
  t.equal(capabilityRule(balanced, tool('low', 'execute')), 'REQUIRE_APPROVAL');
  t.equal(capabilityRule(balanced, tool('high', 'read')), 'REQUIRE_APPROVAL');
  t.equal(capabilityRule(balanced, tool('critical', 'read')), 'DENY');
  t.equal(capabilityRule(balanced, tool('unknown-risk', 'read')), 'REQUIRE_APPROVAL');
  const full = PROFILE_MODELS.full_access;
  t.equal(capabilityRule(full, tool('critical', 'delete')), 'ALLOW');
  t.equal(capabilityRule(full, tool(null, 'read')), 'REQUIRE_APPROVAL', 'unknown tools are held even for full access');
  for (const model of Object.values(PROFILE_MODELS)) t.ok(capabilityModelSchema.safeParse(model).success);
});

t.test('the model only ever tightens the tool rules', async (t) => {
  const traits = [tool('low', 'read'), tool('medium', 'write'), tool('critical', 'delete'), tool(null, null)];
  for (const model of Object.values(PROFILE_MODELS)) {
    for (const rule of RULES) {
      for (const trait of traits) {
        const out = tighten(rule, model, trait);
        t.ok(RULES.indexOf(out) >= RULES.indexOf(rule), `${model.profile} ${rule} ${JSON.stringify(trait)} -> ${out}`);
      }
    }
  }
  t.equal(tighten('DENY', PROFILE_MODELS.full_access, tool('low', 'read')), 'DENY');
  t.equal(tighten('ALLOW', PROFILE_MODELS.safe, tool('low', 'write')), 'REQUIRE_APPROVAL');
  t.equal(strictest('LOG_ONLY', 'ALLOW'), 'LOG_ONLY');
});
