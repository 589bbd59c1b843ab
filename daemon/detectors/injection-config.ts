// The injection detector's policy configuration: its thresholds and the names `disabled_rules` may
// hold (every rule, signal and data rule, the classifier, the ONNX model), and what a score means
// on a policy's scale. The pipelines that read an injection policy import this, not the detector.
import { z } from 'zod';
import { INJECTION_RULES, SIGNAL_WEIGHTS } from './injection-rules.js';
import { DATA_RULES } from './injection-data.js';

/** The trained classifier's name in findings and in `disabled_rules`. */
export const CLASSIFIER = 'model.classifier';
/** The operator's ONNX model (GATEWAY_INJECTION_MODEL_DIR) in findings and in `disabled_rules`. */
export const ONNX_MODEL = 'model.onnx';
const RULE_NAMES = new Set<string>([
  ...INJECTION_RULES.map((r) => r.name),
  ...Object.keys(SIGNAL_WEIGHTS),
  CLASSIFIER,
  ONNX_MODEL,
  ...DATA_RULES.map((r) => r.name),
]);

export const InjectionConfigSchema = z
  .object({
    /** Score at or above which the pipeline blocks (high confidence). */
    block_threshold: z.number().min(0).max(1).default(0.8),
    /** Score at or above which the pipeline flags (medium confidence); below it nothing is reported. */
    flag_threshold: z.number().min(0).max(1).default(0.5),
    disabled_rules: z
      .array(z.string())
      .max(100)
      .default([])
      .refine((names) => names.every((n) => RULE_NAMES.has(n)), { message: 'disabled_rules: unknown rule name' }),
  })
  .strict()
  .refine((c) => c.flag_threshold <= c.block_threshold, {
    message: 'flag_threshold must not exceed block_threshold',
    path: ['flag_threshold'],
  });
export type InjectionConfig = z.output<typeof InjectionConfigSchema>;

export type InjectionLevel = 'high' | 'medium' | 'low';
export function injectionLevel(score: number, config: InjectionConfig): InjectionLevel {
  return score >= config.block_threshold ? 'high' : score >= config.flag_threshold ? 'medium' : 'low';
}

/** Whether a policy's detector consults the ONNX model (an injection policy that does not disable it). */
export function usesOnnxModel(detector: string, config: unknown): boolean {
  return detector === 'injection' && config !== undefined && !(config as InjectionConfig).disabled_rules.includes(ONNX_MODEL);
}
