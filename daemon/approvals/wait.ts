// Waiting for a person's decision on one approval request (the MCP proxy's wait mode). The row in
// the database is the truth: it is read at the start, whenever a change of the project's approvals
// is announced (the state cache's notification, sent at commit by whichever daemon decided), and
// every `pollMs` in case a notification was missed (the listener down or reconnecting).
import type { Sql } from '../db/connect.js';
import { stateCacheOf } from '../state-cache/pool-attachment.js';
import { findApproval, type Approval } from './store.js';

/** How a wait ended: the approval no longer PENDING (or gone), the time given up, or the caller gone. */
export type WaitEnd = { readonly decided: Approval | null } | { readonly timeout: true } | { readonly aborted: true };

export interface WaitOptions {
  /** When to stop waiting (the caller caps it at the approval's expiry). */
  readonly until: number;
  readonly signal: AbortSignal;
  /** The database is read at least this often (default 2 s). */
  readonly pollMs?: number;
}

export async function awaitDecision(sql: Sql, projectId: string, approvalId: string, options: WaitOptions): Promise<WaitEnd> {
  const pollMs = options.pollMs ?? 2_000;
  let wake: (() => void) | null = null;
  const unwatch = stateCacheOf(sql)?.watch((table, project) => {
    if ((table === null || table === 'approvals') && (project === null || project === projectId)) wake?.();
  });
  const onAbort = () => wake?.();
  options.signal.addEventListener('abort', onAbort);
  try {
    for (;;) {
      if (options.signal.aborted) return { aborted: true };
      const approval = await findApproval(sql, projectId, approvalId);
      if (approval === null || approval.status !== 'PENDING') return { decided: approval };
      const left = options.until - Date.now();
      if (left <= 0) return { timeout: true };
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, Math.min(pollMs, left));
        function done() {
          clearTimeout(timer);
          wake = null;
          resolve();
        }
        wake = done;
      });
    }
  } finally {
    unwatch?.();
    options.signal.removeEventListener('abort', onAbort);
  }
}
