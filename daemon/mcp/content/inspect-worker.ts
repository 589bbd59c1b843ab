// Worker thread that inspects one large message at a time (inspect-pool.ts): the detectors run
// here, where the pool can terminate them past the message's budget, and the daemon's thread
// answers others meanwhile. Each rule's stored configuration is parsed here again (a parsed one may
// hold what cannot cross threads), once per distinct configuration.
import { parentPort } from 'node:worker_threads';
import { DETECTORS } from '../../detectors/index.js';
import { READY } from '../../threads/worker-pool.js';
import type { ContentRule } from './effective.js';
import { inspect } from './inspect.js';
import type { InspectJob, InspectReply, WireRule } from './inspect-pool.js';
import { SKIPS } from './skips.js';

// Library chatter must not reach the daemon's JSON log stream on stdout.
for (const method of ['log', 'info', 'warn', 'error', 'debug', 'trace'] as const) console[method] = () => {};

const parsed = new Map<string, unknown>();

function configOf(rule: WireRule): unknown {
  if (rule.invalid) return undefined;
  if (rule.source === undefined) return rule.config;
  const key = `${rule.detector}:${JSON.stringify(rule.source)}`;
  if (!parsed.has(key)) {
    let config: unknown;
    try {
      config = DETECTORS[rule.detector]!.parseConfig(rule.source);
    } catch {
      config = undefined; // fails closed as on the daemon's thread
    }
    parsed.set(key, config);
  }
  return parsed.get(key);
}

parentPort!.on('message', (job: InspectJob) => {
  const rules: ContentRule[] = job.rules.map((r) => ({
    detector: r.detector,
    action: r.action,
    policyId: r.policyId,
    config: configOf(r),
  }));
  let reply: InspectReply;
  try {
    const skip = job.skip === null ? undefined : SKIPS[job.skip];
    reply = { id: job.id, inspection: inspect(job.value, rules, job.origin, job.budgetMs, skip, job.totalMs) };
  } catch {
    reply = {
      id: job.id,
      inspection: { ok: false, errorClass: 'detector_error', detector: 'inspection_worker', findings: [], binaryItems: 0 },
    };
  }
  parentPort!.postMessage(reply);
});
parentPort!.postMessage(READY);
