// traces check-proof's judgement: the server's verdict on a trace proof next to the offline checks
// of shared/proof-check.ts redone here, step by step, plus the anchor transaction checked on chain
// (shared/anchor-rpc-check.ts) when an RPC node is given. The proof holds only when the server says
// intact AND every step checked locally passes with the same result the server reports.
import { z } from 'zod';
import { checkAnchorTx } from '../shared/anchor-rpc-check.js';
import {
  BUNDLE_STEPS,
  checkBundle,
  type BundleChecks,
  type BundleVerdict,
  type CheckResult,
  type ProofBundle,
} from '../shared/proof-check.js';

/** Every step of POST /api/v1/verify-proof, in the order the first failure is taken; anchor_tx needs --rpc. */
export const PROOF_STEPS = [
  'integrity_hash',
  'content_hash',
  'prev_link',
  'next_link',
  'checkpoint_signature',
  'inclusion',
  'epoch_inclusion',
  'anchor_calldata',
  'anchor_tx',
] as const;
export type ProofStep = (typeof PROOF_STEPS)[number];
/** The steps that need only the bundle and a key, compared with the server's; content and links need the database. */
export const LOCAL_STEPS: readonly ProofStep[] = BUNDLE_STEPS;

export interface ProofReport extends ProofBundle {
  readonly intact: boolean;
  readonly reason: string | null;
  readonly detail: string | null;
  readonly content_available: boolean;
  readonly checks: Partial<Record<ProofStep, CheckResult>>;
}

export interface LocalChecks extends BundleChecks {
  /** On chain through --rpc; "not_checked" without it or when an earlier local step failed. */
  anchor_tx: CheckResult;
}

export interface LocalVerdict {
  readonly checks: LocalChecks;
  /** The first local failure, anchor_tx included. */
  readonly reason: string | null;
  readonly detail: string | null;
  /** The key the checkpoint was checked against, and where it came from (null: none was needed). */
  readonly vkey: string | null;
  readonly vkey_source: 'pinned' | 'server' | null;
  /** The RPC node anchor_tx was checked on (null: not asked). */
  readonly rpc: string | null;
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
  merkle: z
    .object({
      leaf_index: z.number().int().min(0),
      tree_size: z.number().int().min(1),
      inclusion_path: z.array(b64).max(64),
      root: b64,
      checkpoint: z.string().max(65_536),
      vkey: z.string().max(1000),
    })
    .nullable(),
  flare_status: z.enum(['PENDING', 'ANCHORED']).nullish(),
  epoch: z
    .object({
      epoch: z.number().int().min(1),
      leaf_index: z.number().int().min(0),
      leaf_count: z.number().int().min(1),
      inclusion_path: z.array(b64).max(64),
      root: z.string().max(100),
      checkpoint_body: z.string().max(65_536),
    })
    .nullish(),
  anchor: z
    .object({
      chain_id: z.number().int().min(1),
      tx_hash: z.string().regex(/^0x[0-9a-fA-F]{64}$/),
      block_number: z.number().int().min(0).nullable(),
      calldata: z.string().max(1000),
    })
    .nullish(),
});

/** The section of the bundle each offline step reads, in step order. */
const SECTION_STEP = [
  ['merkle', 'checkpoint_signature'],
  ['epoch', 'epoch_inclusion'],
  ['anchor', 'anchor_calldata'],
] as const;

const notChecked = (): LocalChecks => ({
  integrity_hash: 'not_checked',
  checkpoint_signature: 'not_checked',
  inclusion: 'not_checked',
  epoch_inclusion: 'not_checked',
  anchor_calldata: 'not_checked',
  anchor_tx: 'not_checked',
});

/** A malformed bundle fails at the first step whose section is malformed, after the steps before it ran. */
function malformed(report: ProofReport, issues: z.core.$ZodIssue[], pinned: string | undefined): BundleVerdict {
  const where = issues
    .slice(0, 3)
    .map((i) => i.path.join('.') || '(root)')
    .join(', ');
  const sections = new Set(issues.map((i) => i.path[0]));
  const first = SECTION_STEP.findIndex(([section]) => sections.has(section));
  const onlySections = issues.every((i) => SECTION_STEP.some(([section]) => section === i.path[0]));
  const checks: BundleChecks = { ...notChecked() };
  const verdict = { reason: 'bundle_malformed', detail: `the proof bundle is malformed at ${where}` };
  if (!onlySections) return { checks: { ...checks, integrity_hash: 'failed' }, ...verdict };
  // Run the steps before the malformed section on the bundle cut there.
  const cut = { ...Object.fromEntries(SECTION_STEP.slice(first).map(([section]) => [section, null])), flare_status: null };
  const before = checkBundle({ ...report, ...cut }, pinned);
  if (before.reason !== null) return before;
  const blamed = SECTION_STEP[first]![1];
  const kept = BUNDLE_STEPS.slice(0, BUNDLE_STEPS.indexOf(blamed));
  for (const step of kept) checks[step] = before.checks[step];
  checks[blamed] = 'failed';
  return { checks, ...verdict };
}

function offline(report: ProofReport, traceId: string, pinned: string | undefined): BundleVerdict {
  const shape = bundleShape.safeParse(report);
  if (!shape.success) return malformed(report, shape.error.issues, pinned);
  if (report.trace_id !== traceId) {
    return {
      checks: { ...notChecked(), integrity_hash: 'failed' },
      reason: 'trace_id_mismatch',
      detail: `the server answered with the proof of trace ${report.trace_id}`,
    };
  }
  return checkBundle(report, pinned);
}

/** Runs the offline checks on what the server sent (against the pinned key when there is one), then anchor_tx on the RPC node. */
export async function checkLocally(report: ProofReport, traceId: string, pinned: string | undefined, rpc?: string): Promise<LocalVerdict> {
  const verdict = offline(report, traceId, pinned);
  const signature = verdict.checks.checkpoint_signature;
  const keyUsed =
    (signature === 'ok' || (signature === 'failed' && verdict.reason !== 'bundle_malformed')) && typeof report.merkle?.vkey === 'string';
  const used = keyUsed ? (pinned ?? report.merkle!.vkey) : null;
  const base = { vkey: used, vkey_source: used === null ? null : pinned ? ('pinned' as const) : ('server' as const), rpc: rpc ?? null };
  const calldata = verdict.checks.anchor_calldata;
  // anchor_tx follows the offline steps: waiting when they wait, checked only after they all passed.
  let anchorTx: CheckResult = calldata === 'pending' ? 'pending' : 'not_checked';
  if (verdict.reason !== null || calldata !== 'ok' || rpc === undefined || !report.anchor) {
    return { ...verdict, checks: { ...verdict.checks, anchor_tx: anchorTx }, ...base };
  }
  const onChain = await checkAnchorTx(report.anchor, rpc);
  anchorTx = onChain.result;
  return { checks: { ...verdict.checks, anchor_tx: anchorTx }, reason: onChain.reason, detail: onChain.detail, ...base };
}

/** The local result of a step; null for the steps only the server can check. */
export function localResultOf(local: LocalVerdict, step: ProofStep): CheckResult | null {
  return step in local.checks ? local.checks[step as keyof LocalChecks] : null;
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
