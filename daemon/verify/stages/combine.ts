// Stage 5: strictest wins, BLOCKED > PENDING_APPROVAL > MODIFIED > FLAGGED > PASSED. A BLOCKED or
// held request forwards nothing and ends the run here; the other decisions go on. Browser traffic
// also gets the strongest enforcement action among what fired (BLOCK > REDIRECT > JUSTIFY > WARN).
import { pass } from '../../pipeline/verdict.js';
import { stop, type Decision, type Effect, type EnforcementAction, type Hit, type Ruling, type Stage } from './types.js';

/** Strictest first: the combined decision is the first of these that any policy produced. */
export const DECISION_ORDER: readonly Decision[] = ['BLOCKED', 'PENDING_APPROVAL', 'MODIFIED', 'FLAGGED', 'PASSED'];
const EFFECT_RANK: Record<Effect, number> = { BLOCK: 7, REDIRECT: 6, REQUIRE_APPROVAL: 5, REDACT: 4, JUSTIFY: 3, WARN: 2, FLAG: 1 };
const EFFECT_DECISION: Record<Effect, Decision> = {
  BLOCK: 'BLOCKED',
  REDIRECT: 'BLOCKED',
  REQUIRE_APPROVAL: 'PENDING_APPROVAL',
  REDACT: 'MODIFIED',
  JUSTIFY: 'FLAGGED',
  WARN: 'FLAGGED',
  FLAG: 'FLAGGED',
};

/** A mask on something that cannot be masked (an attachment's bytes) is a block. */
function effective(hit: Hit): Effect {
  return hit.effect === 'REDACT' && !hit.segment.maskable ? 'BLOCK' : hit.effect;
}

export function combine(hits: readonly Hit[], source: 'api' | 'browser'): Ruling {
  if (hits.length === 0) return { decision: 'PASSED', reasonKey: null, reasonParams: {}, policy: null };
  const top = [...hits].sort((a, b) => EFFECT_RANK[effective(b)] - EFFECT_RANK[effective(a)])[0]!;
  const effect = effective(top);
  const decision = EFFECT_DECISION[effect];
  const params = { policy: top.policy.name };
  const reasonKey =
    effect !== top.effect
      ? 'reason.attachment_unmaskable'
      : ['WARN', 'JUSTIFY', 'REDIRECT'].includes(effect)
        ? `reason.${effect}`
        : `reason.${decision}`;
  const ruling: Ruling = { decision, reasonKey, reasonParams: params, policy: top.policy };
  if (source !== 'browser') return ruling;
  const browserEffects = hits.map(effective).filter((e): e is EnforcementAction => ['BLOCK', 'REDIRECT', 'JUSTIFY', 'WARN'].includes(e));
  if (browserEffects.length === 0) return ruling;
  const enforcement = browserEffects.sort((a, b) => EFFECT_RANK[b] - EFFECT_RANK[a])[0]!;
  const owner = hits.find((h) => effective(h) === enforcement)!.policy;
  const actionConfig = Object.keys(owner.action_config).length > 0 ? { ...owner.action_config } : undefined;
  return { ...ruling, enforcementAction: enforcement, ...(actionConfig ? { actionConfig } : {}) };
}

export const combineStage: Stage = {
  name: 'combine',
  run(ctx, state) {
    const ruling = combine(state.hits!, ctx.source);
    return ruling.decision === 'BLOCKED' || ruling.decision === 'PENDING_APPROVAL' ? stop(ruling) : pass({ ruling });
  },
};
