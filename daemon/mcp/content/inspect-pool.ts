// Inspection of a large message off the daemon's thread. A message above the offload threshold
// (GATEWAY_INSPECTION_OFFLOAD_BYTES of string text or GATEWAY_INSPECTION_OFFLOAD_STRINGS strings) is
// inspected by a worker thread of a pool (daemon/threads/worker-pool.ts), so that one caller's 8 MB
// of arguments or an upstream's 8 MB answer, even one huge string read in one go, does not hold
// /healthz and everyone else's calls; a smaller one is inspected in the thread, in turns
// (inspect.ts inspectInTurns): a worker hop costs more than inspecting a few KB.
//
// The worker gets the value (structured clone: measured cheaper on the sending thread than
// JSON.stringify, ~175 ms against ~310 ms for 120,000 strings), the rules (each with its stored
// configuration, parsed again there), the origin, the budgets and the skip by name (skips.ts); it
// answers the Inspection, plain data, and the caller masks what it says as for any inspection.
// Fail closed: past `totalMs` + GRACE_MS the worker is terminated and replaced and the inspection
// fails `inspection_budget_exceeded`; a worker that dies (out of memory) or cannot start fails it
// `inspection_worker_failed`. Workers start lazily, on the first large message (each loads the
// detectors, ~2 s; most daemons never see such a message, and a boot that warmed them would spend
// those seconds of CPU beside everything else the boot does), and close with the daemon.
import { availableParallelism } from 'node:os';
import type { ResourceLimits } from 'node:worker_threads';
import type { TextOrigin } from '../../detectors/types.js';
import { WorkerPool } from '../../threads/worker-pool.js';
import type { ContentRule } from './effective.js';
import { type Inspection, inspectInTurns } from './inspect.js';
import { SKIPS, type SkipName } from './skips.js';

/** A rule as it crosses to a worker: its stored configuration (`source`) when it has one, else the parsed one. */
export interface WireRule {
  readonly detector: ContentRule['detector'];
  readonly action: ContentRule['action'];
  readonly policyId: string | null;
  readonly source?: unknown;
  readonly config?: unknown;
  /** The configuration no longer parsed on the daemon's thread: it fails there too. */
  readonly invalid?: true;
}

export interface InspectJob {
  readonly id: number;
  readonly value: unknown;
  readonly rules: readonly WireRule[];
  readonly origin: TextOrigin;
  readonly budgetMs: number;
  readonly totalMs: number;
  readonly skip: SkipName | null;
}

export interface InspectReply {
  readonly id: number;
  readonly inspection: Inspection;
}

export interface OffloadSettings {
  /** Worker threads (GATEWAY_INSPECTION_WORKERS). */
  readonly workers: number;
  /** A message whose strings (values and keys) hold more characters than this goes to the pool. */
  readonly offloadBytes: number;
  /** ...or that holds more strings than this. */
  readonly offloadStrings: number;
}

export const DEFAULT_OFFLOAD: OffloadSettings = Object.freeze({
  workers: Math.max(1, availableParallelism() - 1),
  offloadBytes: 64 * 1024,
  offloadStrings: 2000,
});

/** What reading the message in the worker may add to its detector budget before the worker is stopped. */
const GRACE_MS = 1000;
const WORKER_URL = new URL('./inspect-worker.js', import.meta.url);
// The detectors' tables and one message's strings, paths and findings: an 8 MB message of 120,000
// strings is inspected within it (test/api/v1/mcp-content.large-message.test.ts); a heap a hostile
// message outgrows ends the worker, not the daemon (inspection_worker_failed).
const RESOURCE_LIMITS: ResourceLimits = { maxOldGenerationSizeMb: 512, maxYoungGenerationSizeMb: 64, stackSizeMb: 4 };

export type InspectionPool = WorkerPool<InspectJob, InspectReply>;

/** A pool of inspection workers (the daemon's is process-wide: configureInspection). */
export function inspectionPool(size: number, resourceLimits: ResourceLimits = RESOURCE_LIMITS): InspectionPool {
  return new WorkerPool<InspectJob, InspectReply>({ url: WORKER_URL, name: 'content inspection', size, resourceLimits });
}

function wire(rule: ContentRule): WireRule {
  const base = { detector: rule.detector, action: rule.action, policyId: rule.policyId };
  if (rule.config === undefined) return { ...base, invalid: true };
  return rule.source !== undefined ? { ...base, source: rule.source } : { ...base, config: rule.config };
}

const failed = (errorClass: 'inspection_worker_failed' | 'inspection_budget_exceeded'): Inspection => ({
  ok: false,
  errorClass,
  detector: 'inspection_worker',
  findings: [],
  binaryItems: 0,
});

/** inspect() in a worker of `pool`: past `totalMs` (and GRACE_MS to read the message) the worker is terminated. */
export async function inspectInWorker(
  pool: InspectionPool,
  value: unknown,
  rules: readonly ContentRule[],
  origin: TextOrigin,
  budgetMs: number,
  totalMs: number,
  skip: SkipName | null,
  graceMs = GRACE_MS,
): Promise<Inspection> {
  const deadline = Math.min(totalMs + graceMs, 2_147_483_647); // setTimeout's largest delay
  let outcome: Awaited<ReturnType<InspectionPool['run']>>;
  try {
    outcome = await pool.run({ value, rules: rules.map(wire), origin, budgetMs, totalMs, skip }, deadline);
  } catch {
    return failed('inspection_worker_failed'); // no worker could start, or the value could not be sent
  }
  if (outcome.kind === 'done') return outcome.reply.inspection;
  return failed(outcome.kind === 'timeout' ? 'inspection_budget_exceeded' : 'inspection_worker_failed');
}

/**
 * Whether `value` holds more than `bytes` characters of strings (values and keys) or more than
 * `strings` strings. It stops as soon as it knows: a small message is walked once, a large one
 * only up to the threshold.
 */
export function isLarge(value: unknown, bytes: number, strings: number): boolean {
  let chars = 0;
  let count = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v === 'string') {
      chars += v.length;
      count++;
      if (chars > bytes || count > strings) return true;
    } else if (Array.isArray(v)) {
      for (const item of v) stack.push(item);
    } else if (typeof v === 'object' && v !== null) {
      for (const key in v) {
        chars += key.length;
        count++;
        stack.push((v as Record<string, unknown>)[key]);
      }
      if (chars > bytes || count > strings) return true;
    }
  }
  return false;
}

let settings: OffloadSettings = DEFAULT_OFFLOAD;
let shared: InspectionPool | undefined;
let offloaded = 0;

/** Messages sent to the daemon's pool so far. */
export const offloadedMessages = (): number => offloaded;

/** The daemon's offload settings (app.ts, at boot); the pool itself starts on first use. */
export function configureInspection(next: OffloadSettings): void {
  settings = next;
}

/**
 * The inspection a call site waits for: a large message in a worker of the daemon's pool, a small
 * one in this thread, in turns. `skip` is named (skips.ts) so that it can cross to a worker.
 */
export async function inspectContent(
  value: unknown,
  rules: readonly ContentRule[],
  origin: TextOrigin,
  budgetMs: number,
  totalMs: number,
  skip: SkipName | null = null,
): Promise<Inspection> {
  if (rules.length === 0 || !isLarge(value, settings.offloadBytes, settings.offloadStrings)) {
    return inspectInTurns(value, rules, origin, budgetMs, totalMs, skip === null ? undefined : SKIPS[skip]);
  }
  shared ??= inspectionPool(settings.workers);
  offloaded++;
  return inspectInWorker(shared, value, rules, origin, budgetMs, totalMs, skip);
}

/** Stops the inspection workers (daemon shutdown, test teardown); a later large message starts them again. */
export async function closeInspectionWorkers(): Promise<void> {
  const pool = shared;
  shared = undefined;
  if (pool !== undefined) await pool.close();
}
