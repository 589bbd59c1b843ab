// The one function that says which rule governs a call to a tool (the proxy's rule stage, the
// tool list's policy_action, and their tests use it):
//
//   server-wide rule  = the strictest of the tool's rules without an agent, or none
//   agent rules       = rules naming the calling agent (for this tool, or for all its tools);
//                       only REQUIRE_APPROVAL and DENY exist, so they can only tighten
//   capability model  = the agent's model may tighten further (daemon/agents/capability.ts)
//   no rule at all    = held for approval (NO_TOOL_RULE_REQUIRE_APPROVAL)
//
// Strictest wins: DENY > REQUIRE_APPROVAL > LOG_ONLY > ALLOW.
import { RULES, type Rule } from '../../../shared/agent-schemas.js';
import { capabilityRule, strictest, type CapabilityModel, type ToolTraits } from '../../agents/capability.js';

export type RuleSource = 'tool_rule' | 'agent_rule' | 'capability_model' | 'no_rule';

export interface Effective {
  readonly rule: Rule;
  readonly source: RuleSource;
}

export function strictestOf(rules: readonly Rule[]): Rule | null {
  return rules.length === 0 ? null : rules.reduce((a, b) => strictest(a, b));
}

const rank = (r: Rule): number => RULES.indexOf(r);

export function effectiveRule(input: {
  serverWide: readonly Rule[];
  agentRules?: readonly Rule[];
  capability?: { model: CapabilityModel; tool: ToolTraits } | null;
}): Effective {
  const base = strictestOf(input.serverWide);
  let current: Effective = base === null ? { rule: 'REQUIRE_APPROVAL', source: 'no_rule' } : { rule: base, source: 'tool_rule' };
  const agent = strictestOf(input.agentRules ?? []);
  if (agent !== null && rank(agent) > rank(current.rule)) current = { rule: agent, source: 'agent_rule' };
  if (input.capability) {
    const cap = capabilityRule(input.capability.model, input.capability.tool);
    if (rank(cap) > rank(current.rule)) current = { rule: cap, source: 'capability_model' };
  }
  return current;
}
