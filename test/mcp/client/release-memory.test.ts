// After an oversize upstream answer is refused, one full collection is asked for, soon and throttled.
import t from 'tap';
import { PerformanceObserver, constants } from 'node:perf_hooks';
import { releaseAfterRefusal, RELEASE_AFTER_BYTES } from '../../../daemon/mcp/client/release-memory.js';

function majorCollections(): { count: () => number; stop: () => void } {
  let n = 0;
  const obs = new PerformanceObserver((list) => {
    for (const e of list.getEntries())
      if ((e as unknown as { detail?: { kind?: number } }).detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR) n += 1;
  });
  obs.observe({ entryTypes: ['gc'] });
  return { count: () => n, stop: () => obs.disconnect() };
}
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

t.test('a refusal after many bytes brings one full collection; a small one or a second within the interval does not', async (t) => {
  const gc = majorCollections();
  t.teardown(gc.stop);
  releaseAfterRefusal(RELEASE_AFTER_BYTES - 1);
  await sleep(600);
  t.equal(gc.count(), 0, 'under the threshold: no collection');
  releaseAfterRefusal(64 * 1024 * 1024);
  releaseAfterRefusal(64 * 1024 * 1024);
  await sleep(600);
  t.equal(gc.count(), 1, 'two refusals at once: one collection');
  releaseAfterRefusal(64 * 1024 * 1024);
  await sleep(600);
  t.equal(gc.count(), 1, 'another refusal within the interval waits for it');
});
