// After refusing an oversize upstream answer, the bytes read up to the limit (tens of MB) are dead
// but V8 frees them only at its next full collection, which an idle daemon may not run for a long
// time: its resident memory stays up by that much. This asks for one collection soon after such a
// refusal, at most once per MIN_INTERVAL_MS so that a hostile upstream cannot make the daemon
// collect in a loop. V8's gc() is not exposed by default; the flag makes it reachable at run time.
import v8 from 'node:v8';
import vm from 'node:vm';

const MIN_INTERVAL_MS = 5_000;
/** Long enough for the refused exchange to finish and let go of what it read. */
const SETTLE_MS = 200;
/** Refusals that read less than this leave too little behind to be worth a collection. */
export const RELEASE_AFTER_BYTES = 1024 * 1024;

let collect: (() => void) | null | undefined;
let last = 0;
let scheduled = false;

function collector(): (() => void) | null {
  if (collect === undefined) {
    try {
      v8.setFlagsFromString('--expose-gc');
      const gc: unknown = vm.runInNewContext('gc');
      collect = typeof gc === 'function' ? () => (gc as () => void)() : null;
    } catch {
      collect = null;
    }
  }
  return collect;
}

/** Schedules one full collection after `bytesRead` dead bytes, throttled. */
export function releaseAfterRefusal(bytesRead: number): void {
  if (bytesRead < RELEASE_AFTER_BYTES || scheduled) return;
  const wait = Math.max(SETTLE_MS, last + MIN_INTERVAL_MS - Date.now());
  scheduled = true;
  setTimeout(() => {
    scheduled = false;
    last = Date.now();
    collector()?.();
  }, wait).unref();
}
