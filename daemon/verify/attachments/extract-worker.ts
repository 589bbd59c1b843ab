// Worker thread that runs attachment extraction. Sniffing and every extractor run here, where the
// pool can terminate them on their deadline: pdf.js spent 12 s in one synchronous stretch on a
// 200 MB Flate content stream, and even linear passes over a crafted 5 MB HTML or JSON file take
// seconds. The daemon's thread never runs any of it.

import { parentPort } from 'node:worker_threads';
import { warmPdf } from './documents.js';
import { extractBytes } from './extract.js';
import type { ExtractJob, ExtractReply } from './worker-protocol.js';
import { READY } from '../../threads/worker-pool.js';

// Library chatter must not reach the daemon's JSON log stream on stdout.
for (const method of ['log', 'info', 'warn', 'error', 'debug', 'trace'] as const) console[method] = () => {};

parentPort!.on('message', (job: ExtractJob) => {
  void extractBytes(job.bytes, job.declaredType, job.limits).then((result) => {
    const reply: ExtractReply = { id: job.id, result };
    parentPort!.postMessage(reply);
  });
});
await warmPdf();
parentPort!.postMessage(READY);
