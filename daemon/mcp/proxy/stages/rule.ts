// Stage 4: the effective rule (daemon/mcp/rules/effective-rule.ts effectiveRule, the one function for it): the
// strictest of the tool's server-wide rules, the calling agent's rules and its capability model.
// DENY refuses here (-32003); REQUIRE_APPROVAL (a rule, or no rule at all) goes on to the approval stage.
import { effectiveRule, type Effective } from '../../rules/effective-rule.js';
import { pass, refuse, type CallContext, type Stage } from './types.js';

/** The effective rule of the call's tool (which must be known) for its agent. */
export function effectiveOf(ctx: CallContext): Effective {
  const tool = ctx.tool!;
  return effectiveRule({
    serverWide: ctx.serverWide,
    agentRules: ctx.agentRules,
    capability: ctx.agent?.capability ? { model: ctx.agent.capability, tool: { riskLevel: tool.riskLevel, action: tool.action } } : null,
  });
}

export const ruleStage: Stage = {
  name: 'rule',
  run(ctx) {
    const tool = ctx.tool!;
    const effective = effectiveOf(ctx);
    if (effective.rule === 'DENY') return refuse('TOOL_DENIED', { tool: tool.name, rule: 'DENY', rule_source: effective.source });
    return pass({ effective });
  },
};
