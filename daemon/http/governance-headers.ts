// The governance headers every verify (and proxy) response carries (spec, Verify): where the trace
// landed and whether the gateway runs degraded. Routes pass the trace writer's answer, its
// TraceNotPersistedError (503, no body), or { persisted: 'none', degradedSubsystems:
// writer.degradedSubsystems() } when no trace was written (a refusal before any decision).
import type { PersistOutcome } from '../ledger/dlq-outcome.js';

const SUBSYSTEM = /^[a-z][a-z0-9_]*$/;

/** `others` adds subsystems the trace writer does not know about (e.g. a detector running on its fallback). */
export function governanceHeaders(outcome: PersistOutcome, others: readonly string[] = []): Record<string, string> {
  // A trace in the dead-letter queue means the trace store is degraded, whatever the caller passed.
  const implied = outcome.persisted === 'dlq' ? ['trace_store'] : [];
  const subsystems = [...new Set([...outcome.degradedSubsystems, ...others, ...implied])];
  for (const name of subsystems) {
    if (!SUBSYSTEM.test(name)) throw new RangeError(`not a subsystem name: ${JSON.stringify(name)}`);
  }
  const headers: Record<string, string> = {
    'X-Gateway-Status': subsystems.length > 0 ? 'degraded' : 'healthy',
    'X-Gateway-Trace-Persisted': outcome.persisted,
  };
  if (subsystems.length > 0) headers['X-Gateway-Degraded-Subsystems'] = subsystems.join(',');
  return headers;
}
