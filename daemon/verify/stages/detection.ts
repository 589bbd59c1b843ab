// Stage 4: every policy that applies to the request's source and environment runs its detector
// over every segment. A detector that throws, or whose call runs past the budget, or a stored
// configuration that no longer parses, ends the scan: BLOCKED with its error class (fail closed),
// the hits found before it kept for the trace. So does the optional ONNX injection model when it
// failed or overran its budget (load.ts ran it), at the first injection policy that consults it.
import { DETECTORS } from '../../detectors/index.js';
import { injectionLevel, usesOnnxModel, type InjectionConfig } from '../../detectors/injection-config.js';
import type { Finding } from '../../detectors/types.js';
import type { LoadedPolicy } from '../prompt-policies.js';
import { pass } from '../../pipeline/verdict.js';
import { failClosed, stop, textOrigin, type Effect, type Hit, type ModelScores, type Segment, type Stage } from './types.js';

export function applicable(policies: readonly LoadedPolicy[], source: 'api' | 'browser', environment: string): LoadedPolicy[] {
  return policies.filter(
    (p) =>
      p.enabled && p.scope.sources.includes(source) && (p.scope.environments.includes('*') || p.scope.environments.includes(environment)),
  );
}

/** What one finding makes of a policy's action: injection below the block threshold only flags. */
function effectOf(policy: LoadedPolicy, finding: Finding): Effect {
  if (policy.detector === 'injection' && injectionLevel(finding.score, policy.parsedConfig as InjectionConfig) !== 'high') return 'FLAG';
  return policy.action as Effect;
}

export type ScanResult =
  | { readonly ok: true; readonly hits: Hit[] }
  | {
      readonly ok: false;
      readonly errorClass: 'detector_error' | 'detector_timeout' | 'policy_config_invalid';
      readonly policy: LoadedPolicy;
      readonly hits: Hit[];
    };

/**
 * Runs every policy's detector over every segment. Detectors are synchronous and linear-time (RE2
 * for user patterns), so the budget is checked after each call.
 */
export function scan(policies: readonly LoadedPolicy[], segments: readonly Segment[], budgetMs: number, model?: ModelScores): ScanResult {
  const hits: Hit[] = [];
  for (const policy of policies) {
    const detector = DETECTORS[policy.detector];
    if (policy.parsedConfig === undefined) return { ok: false, errorClass: 'policy_config_invalid', policy, hits };
    const consults = model !== undefined && usesOnnxModel(policy.detector, policy.parsedConfig);
    if (consults && !model.ok) return { ok: false, errorClass: model.errorClass, policy, hits };
    for (const segment of segments) {
      const started = performance.now();
      const modelScore = consults && model.ok ? model.bySegment.get(segment.id) : undefined;
      let findings: Finding[];
      try {
        if (!detector) throw new Error(`unknown detector ${policy.detector}`);
        findings = detector.detect(segment.text, policy.parsedConfig, { origin: textOrigin(segment), modelScore });
      } catch {
        return { ok: false, errorClass: 'detector_error', policy, hits };
      }
      if (performance.now() - started > budgetMs) return { ok: false, errorClass: 'detector_timeout', policy, hits };
      if (findings.length === 0) continue;
      const byEffect = new Map<Effect, Finding[]>();
      for (const f of findings) {
        const e = effectOf(policy, f);
        byEffect.set(e, [...(byEffect.get(e) ?? []), f]);
      }
      for (const [effect, fs] of byEffect) hits.push({ policy, segment, effect, findings: fs });
    }
  }
  return { ok: true, hits };
}

export const policiesStage: Stage = {
  name: 'policies',
  run(ctx, state) {
    const scanned = scan(applicable(ctx.policies, ctx.source, ctx.environment), state.segments!, ctx.detectorBudgetMs, ctx.modelScores);
    return scanned.ok ? pass({ hits: scanned.hits }) : stop(failClosed(scanned.errorClass, scanned.policy), scanned.hits);
  },
};
