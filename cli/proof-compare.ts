// traces verify-proof's judgement: the server's verdict on a trace proof next to the offline checks
// of shared/proof-check.ts redone here, step by step. The proof holds only when the server says
// intact AND every step checked locally passes with the same result the server reports.
import { z } from 'zod';
import { checkBundle, type BundleChecks, type BundleVerdict, type CheckResult, type ProofBundle } from '../shared/proof-check.js';

/** Every step of POST /api/v1/verify-proof, in the order the first failure is taken. */
export const PROOF_STEPS = ['integrity_hash', 'content_hash', 'prev_link', 'next_link', 'checkpoint_signature', 'inclusion'] as const;
export type ProofStep = (typeof PROOF_STEPS)[number];
/** The steps that need only the bundle and a key; the rest need the database. */
export const LOCAL_STEPS: readonly ProofStep[] = ['integrity_hash', 'checkpoint_signature', 'inclusion'];

export interface ProofReport extends ProofBundle {
  readonly intact: boolean;
  readonly reason: string | null;
  readonly detail: string | null;
  readonly content_available: boolean;
  readonly checks: Partial<Record<ProofStep, CheckResult>>;
}

export interface LocalVerdict extends BundleVerdict {
  /** The key the checkpoint was checked against, and where it came from (null: none was needed). */
  readonly vkey: string | null;
  readonly vkey_source: 'pinned' | 'server' | null;
}

export interface StepFailure {
  readonly step: ProofStep;
  readonly by: 'server' | 'local' | 'both';
  readonly reason: string | null;
  readonly detail: string | null;
}

export interface Disagreement {
  readonly step: ProofStep;
  readonly server: CheckResult | null;
  readonly local: CheckResult;
}

export interface ProofComparison {
  readonly trace_id: string;
  readonly intact: boolean;
  readonly first_failure: StepFailure | null;
  readonly disagreements: Disagreement[];
  readonly local: LocalVerdict;
  readonly server: ProofReport;
}

// The shape checkBundle reads; a server that sends anything else fails the local check rather than crashing it.
const b64 = z.string().max(100);
const bundleShape = z.object({
  trace_id: z.string(),
  project_id: z.string(),
  sequence_num: z.number().int().min(1),
  integrity_hash: z.string(),
  prev_hash: z.string(),
  content_hash: z.string(),
  header: z.record(z.string(), z.unknown()),
  merkle: z.object({
    leaf_index: z.number().int().min(0),
    tree_size: z.number().int().min(1),
    inclusion_path: z.array(b64).max(64),
    root: b64,
    checkpoint: z.string().max(65_536),
    vkey: z.string().max(1000),
  }).nullable(),
});

const NOT_CHECKED: BundleChecks = { integrity_hash: 'not_checked', checkpoint_signature: 'not_checked', inclusion: 'not_checked' };

/** Runs the offline checks on what the server sent, against the pinned key when there is one. */
export function checkLocally(report: ProofReport, traceId: string, pinned: string | undefined): LocalVerdict {
  const shape = bundleShape.safeParse(report);
  if (!shape.success) {
    // Name the step the malformed part belongs to: the proof of inclusion, or the entry itself.
    const where = shape.error.issues.slice(0, 3).map((i) => i.path.join('.') || '(root)').join(', ');
    const merkleOnly = shape.error.issues.every((i) => i.path[0] === 'merkle');
    const entry = merkleOnly ? checkBundle({ ...report, merkle: null }) : null;
    if (entry && entry.reason !== null) return { ...entry, vkey: null, vkey_source: null };
    const checks: BundleChecks = entry ? { ...NOT_CHECKED, integrity_hash: 'ok', checkpoint_signature: 'failed' } : { ...NOT_CHECKED, integrity_hash: 'failed' };
    return { checks, reason: 'bundle_malformed', detail: `the proof bundle is malformed at ${where}`, vkey: null, vkey_source: null };
  }
  if (report.trace_id !== traceId) {
    return {
      checks: { ...NOT_CHECKED, integrity_hash: 'failed' }, reason: 'trace_id_mismatch',
      detail: `the server answered with the proof of trace ${report.trace_id}`, vkey: null, vkey_source: null,
    };
  }
  const used = report.merkle === null ? null : pinned ?? report.merkle.vkey;
  return { ...checkBundle(report, pinned), vkey: used, vkey_source: used === null ? null : pinned ? 'pinned' : 'server' };
}

/** The local result of a step; null for the steps only the server can check. */
export function localResultOf(local: BundleVerdict, step: ProofStep): CheckResult | null {
  return step === 'integrity_hash' || step === 'checkpoint_signature' || step === 'inclusion' ? local.checks[step] : null;
}

export function compareProof(report: ProofReport, local: LocalVerdict, traceId: string): ProofComparison {
  const localOf = (step: ProofStep): CheckResult | null => localResultOf(local, step);
  const disagreements: Disagreement[] = [];
  for (const step of LOCAL_STEPS) {
    const mine = localOf(step)!;
    const theirs = report.checks?.[step] ?? null;
    if (mine !== theirs) disagreements.push({ step, server: theirs, local: mine });
  }
  let first: StepFailure | null = null;
  for (const step of PROOF_STEPS) {
    const byServer = report.checks?.[step] === 'failed';
    const byLocal = localOf(step) === 'failed';
    if (!byServer && !byLocal) continue;
    first = byLocal
      ? { step, by: byServer ? 'both' : 'local', reason: local.reason, detail: local.detail }
      : { step, by: 'server', reason: report.reason, detail: report.detail };
    break;
  }
  // A server that says "not intact" without naming a failed step still fails the proof.
  const intact = report.intact === true && first === null && disagreements.length === 0;
  return { trace_id: traceId, intact, first_failure: first, disagreements, local, server: report };
}
