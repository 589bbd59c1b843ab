// What route handlers may use: the database, the trace writer, configuration and the logger.
import type { Dispatcher } from 'undici';
import type { AgentActivity } from '../agents/activity.js';
import type { Config } from '../config.js';
import type { CheckpointKey } from '../crypto/checkpoint-key.js';
import type { SecretBox } from '../crypto/secret-box.js';
import type { RouteRequest } from '../http/types.js';
import type { Actor } from '../project/admin-actions.js';
import type { Sql } from '../db/connect.js';
import type { TraceWriter } from '../ledger/trace-writer.js';
import type { Logger } from '../log.js';
import type { Metrics } from '../metrics.js';

export interface Deps {
  readonly config: Config;
  readonly sql: Sql;
  readonly writer: TraceWriter;
  readonly log: Logger;
  readonly metrics: Metrics;
  readonly activity: AgentActivity;
  readonly secretBox: SecretBox;
  readonly checkpointKey: CheckpointKey;
  /** The only way out to MCP servers: the SSRF-guarded dispatcher (daemon/mcp/ssrf.ts). */
  readonly upstream: Dispatcher;
}

/** The actor of an admin action: the calling credential and the request id, for the admin log. */
export function actorOf(r: RouteRequest): Actor {
  return { principal: r.principal, requestId: r.ctx.requestId };
}
