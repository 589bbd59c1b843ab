// What app.ts hands the pipelines (verify, the MCP proxy, webhook ingest) and the route handlers:
// the database, the trace writer, configuration, the logger, the keys and the upstream dispatcher.
import type { Dispatcher } from 'undici';
import type { AgentActivity } from './agents/activity.js';
import type { Config } from './config.js';
import type { CheckpointKey } from './crypto/checkpoint-key.js';
import type { SecretBox } from './crypto/secret-box.js';
import type { Sql } from './db/connect.js';
import type { TraceWriter } from './ledger/trace-writer.js';
import type { Logger } from './log.js';
import type { Metrics } from './metrics.js';
import type { OnnxClassifier } from './models/onnx-classifier.js';

export interface Deps {
  readonly config: Config;
  /** The gateway's public base URL (GATEWAY_PUBLIC_URL, or where it listens): servers' proxy_url. */
  readonly publicUrl: () => string;
  readonly sql: Sql;
  readonly writer: TraceWriter;
  readonly log: Logger;
  readonly metrics: Metrics;
  readonly activity: AgentActivity;
  readonly secretBox: SecretBox;
  readonly checkpointKey: CheckpointKey;
  /** The only way out to MCP servers: the SSRF-guarded dispatcher (daemon/mcp/client/ssrf-guard.ts). */
  readonly upstream: Dispatcher;
  /** The operator's ONNX injection model (GATEWAY_INJECTION_MODEL_DIR), loaded at start; null: none. */
  readonly injectionModel: OnnxClassifier | null;
}
