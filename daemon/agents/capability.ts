// The capability model: what an agent's protection profile lets it do with MCP tools. It can only
// tighten the rule the tool rules give (ALLOW < LOG_ONLY < REQUIRE_APPROVAL < DENY), never loosen it.
// A tool whose risk level or action is unknown counts as the riskiest, so gaps fail closed.

import {
  capabilityModelSchema,
  PROFILES,
  RISK_LEVELS,
  RULES,
  TOOL_ACTIONS,
  type CapabilityModel,
  type Profile,
  type Rule,
} from '../../shared/agent-schemas.js';

export { capabilityModelSchema, PROFILES, RISK_LEVELS, RULES, TOOL_ACTIONS };
export type { CapabilityModel, Profile, Rule };

/** Fail-closed default when registration names no profile. */
export const DEFAULT_PROFILE: Profile = 'safe';

export const PROFILE_MODELS: Record<Profile, CapabilityModel> = {
  safe: {
    profile: 'safe',
    deny: { risk_levels: ['critical'], actions: ['delete', 'execute'] },
    require_approval: { risk_levels: ['medium', 'high'], actions: ['write', 'other'] },
    unknown_tools: 'DENY',
  },
  balanced: {
    profile: 'balanced',
    deny: { risk_levels: ['critical'], actions: [] },
    require_approval: { risk_levels: ['high'], actions: ['delete', 'execute'] },
    unknown_tools: 'REQUIRE_APPROVAL',
  },
  full_access: {
    profile: 'full_access',
    deny: { risk_levels: [], actions: [] },
    require_approval: { risk_levels: [], actions: [] },
    unknown_tools: 'REQUIRE_APPROVAL',
  },
};

export interface ToolTraits {
  readonly riskLevel: string | null;
  readonly action: string | null;
}

export function strictest(a: Rule, b: Rule): Rule {
  return RULES.indexOf(a) >= RULES.indexOf(b) ? a : b;
}

/** What the model alone says of a tool. */
export function capabilityRule(model: CapabilityModel, tool: ToolTraits): Rule {
  const risk = RISK_LEVELS.find((r) => r === tool.riskLevel);
  const action = TOOL_ACTIONS.find((a) => a === tool.action);
  if (!risk || !action) return model.unknown_tools;
  if (model.deny.risk_levels.includes(risk) || model.deny.actions.includes(action)) return 'DENY';
  if (model.require_approval.risk_levels.includes(risk) || model.require_approval.actions.includes(action)) return 'REQUIRE_APPROVAL';
  return 'ALLOW';
}

/** The rule for an agent's call: the tool rules' verdict, tightened (never loosened) by the model. */
export function tighten(ruleFromPolicies: Rule, model: CapabilityModel, tool: ToolTraits): Rule {
  return strictest(ruleFromPolicies, capabilityRule(model, tool));
}
