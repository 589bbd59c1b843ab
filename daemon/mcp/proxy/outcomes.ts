// What happened upstream after a forwarded tools/call: upstream status, outcome, JSON-RPC error
// code, latency, keyed by the decision trace. Rows are collected in memory and written in batches
// with synchronous_commit off, so the response path never waits on a write for them: the
// decision trace is the durable record; an outcome lost in a crash loses a measurement, not a call.
import { availabilityOf } from '../../db/availability.js';
import type { Sql } from '../../db/connect.js';
import { beginSurvivingDisconnect } from '../../db/unreachable.js';
import type { Logger } from '../../log.js';

export interface CallOutcome {
  readonly trace_id: string;
  readonly project_id: string;
  readonly server_id: string;
  readonly tool_name: string;
  readonly upstream_status: number | null;
  /** ok | rpc_error | unreachable | invalid_response | http_error | client_gone */
  readonly outcome: string;
  readonly rpc_code: number | null;
  readonly latency_ms: number;
}

export class OutcomeRecorder {
  private rows: CallOutcome[] = [];
  private timer: NodeJS.Timeout | null = null;
  private writing: Promise<void> = Promise.resolve();

  constructor(
    private readonly sql: Sql,
    private readonly log: Logger,
    private readonly intervalMs = 100,
    private readonly batchMax = 500,
  ) {}

  record(row: CallOutcome): void {
    this.rows.push(row);
    if (this.rows.length >= this.batchMax) void this.flush();
    else
      this.timer ??= setTimeout(() => {
        void this.flush();
      }, this.intervalMs).unref();
  }

  /** Writes what is collected; resolves when it is written (or given up on). */
  flush(): Promise<void> {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    const batch = this.rows.splice(0);
    if (batch.length === 0) return this.writing;
    if (availabilityOf(this.sql)?.down) {
      // Nothing is asked of a database known down (db/availability.ts): these measurements are lost, the decisions are not.
      this.log.warn({ rows: batch.length }, 'MCP call outcomes not recorded: the database is unreachable');
      return this.writing;
    }
    this.writing = this.writing
      .then(() =>
        beginSurvivingDisconnect(this.sql, async (tx) => {
          await tx`set local synchronous_commit = off`;
          await tx`insert into mcp_call_outcomes ${tx(batch.map((r) => ({ ...r })))} on conflict (trace_id) do nothing`;
        }),
      )
      .then(
        () => undefined,
        (err: unknown) => {
          this.log.warn({ err, rows: batch.length }, 'MCP call outcomes not recorded');
        },
      );
    return this.writing;
  }
}
