// The attachment extractor workers: a pool (daemon/threads/worker-pool.ts) of extract-worker.ts.
// Loading pdf.js costs about a second, so workers are kept and reused; one that overruns its time
// budget or dies is terminated and replaced.

import { availableParallelism } from 'node:os';
import { WorkerPool } from '../../threads/worker-pool.js';
import type { ExtractJob, ExtractReply } from './worker-protocol.js';

export type ExtractorPool = WorkerPool<ExtractJob, ExtractReply>;

const WORKER_URL = new URL('./extract-worker.js', import.meta.url);
// The heap cap bounds what pdf.js and mammoth can build from a hostile file; ArrayBuffers are
// outside it, which is why DOCX goes through the zip guard and every job has a deadline.
const RESOURCE_LIMITS = { maxOldGenerationSizeMb: 256, maxYoungGenerationSizeMb: 32, stackSizeMb: 4 };

let shared: ExtractorPool | undefined;

/** The process-wide pool, sized to at most two workers (the deployment has two cores). */
export function sharedPool(): ExtractorPool {
  shared ??= new WorkerPool<ExtractJob, ExtractReply>({
    url: WORKER_URL,
    name: 'attachment extractor',
    size: Math.min(2, availableParallelism()),
    resourceLimits: RESOURCE_LIMITS,
  });
  return shared;
}

export async function closeSharedPool(): Promise<void> {
  const pool = shared;
  shared = undefined;
  if (pool !== undefined) await pool.close();
}
