// Configuration: read once from the environment, validated by one zod schema, frozen.
// A wrong value stops the daemon with one line naming the variable (see main.ts).
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { type AnchorConfig, anchorConfigOf, anchorEnv, checkAnchorEnv } from './config-anchor.js';
import { type ApprovalsConfig, approvalsConfigOf, approvalsEnv } from './config-approvals.js';
import { flag, positiveInt } from './config-values.js';
import { checkConsoleEnv, type ConsoleOidcConfig, consoleEnv, consoleOidcConfigOf } from './config-console.js';
import { identityConfigOf, identityEnv, type IdentityConfig } from './config-identity.js';

const listen = z
  .string()
  .regex(/^(\[[0-9a-fA-F:]+\]|[^:\s]+):\d{1,5}$/, 'expected host:port')
  .transform((v) => {
    const cut = v.lastIndexOf(':');
    const port = Number(v.slice(cut + 1));
    if (port > 65535) throw new Error('port out of range');
    return { host: v.slice(0, cut).replace(/^\[|\]$/g, ''), port };
  });

/** A comma-separated setting as its non-empty, trimmed items. */
const commaList = () =>
  z
    .string()
    .default('')
    .transform((v) =>
      v
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    );

const cidrList = commaList();

/** Exact browser origins, comma-separated (http/origin.ts); stored lower case as browsers send them. */
const originList = z
  .string()
  .default('')
  .transform((v) =>
    v
      .split(',')
      .map((s) => s.trim().toLowerCase())
      .filter(Boolean),
  )
  .refine(
    (list) => list.every((o) => /^[a-z][a-z0-9+.-]*:\/\/[^\s/?#]+$/.test(o)),
    'expected comma-separated origins: scheme://host[:port], no path',
  );

/** The base URL MCP hosts reach the gateway at: http(s), no path, query, fragment or credentials. */
const publicUrl = z
  .string()
  .refine((v) => {
    try {
      const u = new URL(v);
      return (
        (u.protocol === 'http:' || u.protocol === 'https:')
        && u.username === ''
        && u.password === ''
        && (u.pathname === '/' || u.pathname === '')
        && u.search === ''
        && u.hash === ''
        && !/[?#]/.test(v)
      );
    } catch {
      return false;
    }
  }, 'expected an http(s) base URL without path, query or credentials (https://gateway.example.com)')
  .transform((v) => new URL(v).origin);

/** The default public URL: where the daemon listens, a wildcard address shown as 127.0.0.1. */
export function defaultPublicUrl(host: string, port: number): string {
  const shown = host === '0.0.0.0' || host === '::' || host === '' ? '127.0.0.1' : host;
  return `http://${shown.includes(':') ? `[${shown}]` : shown}:${port}`;
}

/** Executables stdio MCP servers may run: absolute paths or bare names looked up on PATH at start. */
const commandList = commaList().refine(
  (list) => list.every((c) => (c.startsWith('/') && !c.split('/').includes('..')) || /^[A-Za-z0-9._+-]+$/.test(c)),
  'expected comma-separated absolute paths or bare program names (npx, uvx, /usr/local/bin/server)',
);

const envSchema = z
  .object({
    DATABASE_URL: z.string().url().optional(),
    GATEWAY_DATA_DIR: z.string().min(1).default('./.gateway'),
    GATEWAY_LISTEN: listen.default({ host: '127.0.0.1', port: 8080 }),
    GATEWAY_PUBLIC_URL: publicUrl.optional(),
    GATEWAY_LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    GATEWAY_DB_POOL_MAX: positiveInt(20),
    GATEWAY_SHUTDOWN_TIMEOUT_SECONDS: positiveInt(15),
    GATEWAY_TRACE_BATCH_MAX: positiveInt(500),
    GATEWAY_ENCRYPTION_KEY: z
      .string()
      .regex(/^[A-Za-z0-9+/]{43}=$/, 'expected 32 bytes in base64')
      .optional(),
    ...approvalsEnv,
    GATEWAY_EXPORT_ROW_CAP: positiveInt(1_000_000),
    GATEWAY_BODY_LIMIT_BYTES: positiveInt(10 * 1024 * 1024),
    GATEWAY_UPSTREAM_RESPONSE_LIMIT_BYTES: positiveInt(64 * 1024 * 1024),
    GATEWAY_UPSTREAM_TIMEOUT_SECONDS: positiveInt(30),
    GATEWAY_UPSTREAM_IDLE_TIMEOUT_SECONDS: positiveInt(300),
    GATEWAY_UPSTREAM_CALL_TIMEOUT_SECONDS: positiveInt(3600),
    GATEWAY_SCAN_TIMEOUT_SECONDS: positiveInt(30),
    GATEWAY_UPSTREAM_ALLOW: cidrList,
    GATEWAY_ALLOWED_ORIGINS: originList,
    GATEWAY_CHECKPOINT_INTERVAL_SECONDS: positiveInt(10),
    GATEWAY_CHECKPOINT_KEY_FILE: z.string().min(1).optional(),
    GATEWAY_LEDGER_ORIGIN: z
      .string()
      .regex(/^[A-Za-z0-9.-]{1,200}$/, 'expected a host name (letters, digits, dots, dashes)')
      .default('governance-gateway.local'),
    GATEWAY_RETENTION_INTERVAL_SECONDS: positiveInt(3600),
    GATEWAY_DETECTOR_BUDGET_MS: positiveInt(1000),
    GATEWAY_INSPECTION_BUDGET_MS: positiveInt(5000),
    GATEWAY_INSPECTION_WORKERS: positiveInt(Math.max(1, availableParallelism() - 1)),
    GATEWAY_INSPECTION_OFFLOAD_BYTES: positiveInt(64 * 1024),
    GATEWAY_INSPECTION_OFFLOAD_STRINGS: positiveInt(2000),
    GATEWAY_INJECTION_MODEL_DIR: z.string().min(1).optional(),
    GATEWAY_OUTAGE_STATE_MAX_AGE_SECONDS: z.coerce.number().int().min(0).default(900),
    ...anchorEnv,
    GATEWAY_STDIO_COMMANDS: commandList,
    GATEWAY_STDIO_UNSAFE_NO_SANDBOX: flag,
    GATEWAY_NOTIFICATION_POLL_MS: positiveInt(1000),
    GATEWAY_NOTIFICATION_TIMEOUT_SECONDS: positiveInt(5),
    GATEWAY_NOTIFICATION_RETRY_BASE_MS: positiveInt(5000),
    GATEWAY_NOTIFICATION_RETRY_MAX_MS: positiveInt(3_600_000),
    GATEWAY_NOTIFICATION_RETRY_WINDOW_SECONDS: positiveInt(86_400),
    GATEWAY_CONSOLE_SESSION_IDLE_SECONDS: positiveInt(1800),
    GATEWAY_CONSOLE_SESSION_MAX_SECONDS: positiveInt(43_200),
    ...identityEnv,
    ...consoleEnv,
  })
  .superRefine((e, ctx) => {
    checkConsoleEnv(e, ctx);
    checkAnchorEnv(e, ctx);
  });

/** The daemon's settings; the approval settings (config-approvals.ts) among its own fields. */
export interface Config extends ApprovalsConfig {
  readonly databaseUrl: string | undefined;
  readonly dataDir: string;
  readonly listen: { readonly host: string; readonly port: number };
  /**
   * GATEWAY_PUBLIC_URL: the base URL MCP hosts use (servers' proxy_url); null: http://<GATEWAY_LISTEN>
   * with the port actually bound (app.ts), a wildcard host shown as 127.0.0.1.
   */
  readonly publicUrl: string | null;
  readonly logLevel: string;
  readonly dbPoolMax: number;
  readonly shutdownTimeoutMs: number;
  readonly traceBatchMax: number;
  readonly encryptionKey: string | undefined;
  readonly exportRowCap: number;
  readonly bodyLimitBytes: number;
  readonly upstreamResponseLimitBytes: number;
  /** Connect + response headers of an upstream request (a tools/call's headers: see mcp/client/deadline.ts). */
  readonly upstreamTimeoutMs: number;
  /** Longest silence between complete SSE events or comments of an upstream answer. */
  readonly upstreamIdleTimeoutMs: number;
  /** Longest proxied call (one upstream exchange), however steadily the upstream sends. */
  readonly upstreamCallTimeoutMs: number;
  /** Longest scan, every exchange and the goodbye included. */
  readonly scanTimeoutMs: number;
  readonly upstreamAllow: readonly string[];
  /** Browser origins served (an Origin header naming any other is refused 403); empty: none. */
  readonly allowedOrigins: ReadonlySet<string>;
  readonly checkpointIntervalMs: number;
  /** The Ed25519 key that signs checkpoints: a file outside the database (PKCS#8 PEM). */
  readonly checkpointKeyFile: string;
  /** The name checkpoints are signed under; each project's log origin is `<origin>/projects/<id>`. */
  readonly ledgerOrigin: string;
  readonly retentionIntervalMs: number;
  /** Longest one detector may run on one text before the request is blocked (fail closed). */
  readonly detectorBudgetMs: number;
  /** The detector time one MCP request's content may cost in all before it is refused (fail closed). */
  readonly inspectionBudgetMs: number;
  /**
   * An MCP message whose strings hold more characters than offloadBytes, or that holds more strings
   * than offloadStrings, is inspected in one of `workers` worker threads (mcp/content/inspect-pool.ts).
   */
  readonly inspectionOffload: { readonly workers: number; readonly offloadBytes: number; readonly offloadStrings: number };
  /**
   * A local ONNX text classifier the injection detector also consults (models/onnx-classifier.ts);
   * null: none. Loaded at start, never fetched.
   */
  readonly injectionModelDir: string | null;
  /** While the database is unreachable, state read at most this long ago is decided on (0: none). */
  readonly outageStateMaxAgeMs: number;
  /** Ledger anchoring (daemon/anchor/): null when GATEWAY_ANCHOR_RPC_URL is unset (off in this daemon). */
  readonly anchor: AnchorConfig | null;
  /** Outbound webhook delivery (daemon/delivery/deliver.ts); targets use upstreamAllow too. */
  readonly notifications: NotificationConfig;
  /**
   * GATEWAY_STDIO_COMMANDS: the executables a stdio MCP server may run (absolute paths, or names
   * resolved on PATH); empty: stdio servers are off.
   */
  readonly stdioCommands: readonly string[];
  /** GATEWAY_STDIO_UNSAFE_NO_SANDBOX: run stdio servers without bubblewrap when it is missing. */
  readonly stdioUnsafeNoSandbox: boolean;
  /** Web console sessions (http/console-session.ts): ended after idleSeconds unused, and maxSeconds after sign-in. */
  readonly consoleSession: { readonly idleSeconds: number; readonly maxSeconds: number };
  /** The proxy as an OAuth resource server (config-identity.ts, daemon/identity/); null when GATEWAY_OIDC_ISSUER is unset. */
  readonly identity: IdentityConfig | null;
  /** The console's sign-in by the issuer (config-console.ts); null when GATEWAY_CONSOLE_OIDC_CLIENT_ID is unset. */
  readonly consoleOidc: ConsoleOidcConfig | null;
}

export interface NotificationConfig {
  /** How often each daemon looks for due deliveries (and for approvals to mark expired). */
  readonly pollMs: number;
  /** One delivery attempt's longest time. */
  readonly timeoutMs: number;
  /** First retry delay, doubled per attempt up to retryMaxMs, with jitter. */
  readonly retryBaseMs: number;
  readonly retryMaxMs: number;
  /** Retries end this long after the event (then dead). */
  readonly retryWindowMs: number;
}

export class ConfigError extends Error {}

/** Parses the environment; throws ConfigError whose message is one line naming the variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const present = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = envSchema.safeParse(present);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const name = String(issue.path[0] ?? 'environment');
    throw new ConfigError(`invalid configuration: ${name}: ${issue.message}`);
  }
  const e = parsed.data;
  return Object.freeze({
    databaseUrl: e.DATABASE_URL,
    dataDir: path.resolve(e.GATEWAY_DATA_DIR),
    listen: Object.freeze(e.GATEWAY_LISTEN),
    publicUrl: e.GATEWAY_PUBLIC_URL ?? null,
    logLevel: e.GATEWAY_LOG_LEVEL,
    dbPoolMax: e.GATEWAY_DB_POOL_MAX,
    shutdownTimeoutMs: e.GATEWAY_SHUTDOWN_TIMEOUT_SECONDS * 1000,
    traceBatchMax: e.GATEWAY_TRACE_BATCH_MAX,
    encryptionKey: e.GATEWAY_ENCRYPTION_KEY,
    ...approvalsConfigOf(e),
    exportRowCap: e.GATEWAY_EXPORT_ROW_CAP,
    bodyLimitBytes: e.GATEWAY_BODY_LIMIT_BYTES,
    upstreamResponseLimitBytes: e.GATEWAY_UPSTREAM_RESPONSE_LIMIT_BYTES,
    upstreamTimeoutMs: e.GATEWAY_UPSTREAM_TIMEOUT_SECONDS * 1000,
    upstreamIdleTimeoutMs: e.GATEWAY_UPSTREAM_IDLE_TIMEOUT_SECONDS * 1000,
    upstreamCallTimeoutMs: e.GATEWAY_UPSTREAM_CALL_TIMEOUT_SECONDS * 1000,
    scanTimeoutMs: e.GATEWAY_SCAN_TIMEOUT_SECONDS * 1000,
    upstreamAllow: Object.freeze([...e.GATEWAY_UPSTREAM_ALLOW]),
    allowedOrigins: new Set(e.GATEWAY_ALLOWED_ORIGINS),
    checkpointIntervalMs: e.GATEWAY_CHECKPOINT_INTERVAL_SECONDS * 1000,
    checkpointKeyFile: path.resolve(e.GATEWAY_CHECKPOINT_KEY_FILE ?? path.join(e.GATEWAY_DATA_DIR, 'checkpoint.key')),
    ledgerOrigin: e.GATEWAY_LEDGER_ORIGIN,
    retentionIntervalMs: e.GATEWAY_RETENTION_INTERVAL_SECONDS * 1000,
    detectorBudgetMs: e.GATEWAY_DETECTOR_BUDGET_MS,
    inspectionBudgetMs: e.GATEWAY_INSPECTION_BUDGET_MS,
    inspectionOffload: Object.freeze({
      workers: e.GATEWAY_INSPECTION_WORKERS,
      offloadBytes: e.GATEWAY_INSPECTION_OFFLOAD_BYTES,
      offloadStrings: e.GATEWAY_INSPECTION_OFFLOAD_STRINGS,
    }),
    injectionModelDir: e.GATEWAY_INJECTION_MODEL_DIR === undefined ? null : path.resolve(e.GATEWAY_INJECTION_MODEL_DIR),
    outageStateMaxAgeMs: e.GATEWAY_OUTAGE_STATE_MAX_AGE_SECONDS * 1000,
    anchor: anchorConfigOf(e),
    notifications: Object.freeze({
      pollMs: e.GATEWAY_NOTIFICATION_POLL_MS,
      timeoutMs: e.GATEWAY_NOTIFICATION_TIMEOUT_SECONDS * 1000,
      retryBaseMs: e.GATEWAY_NOTIFICATION_RETRY_BASE_MS,
      retryMaxMs: e.GATEWAY_NOTIFICATION_RETRY_MAX_MS,
      retryWindowMs: e.GATEWAY_NOTIFICATION_RETRY_WINDOW_SECONDS * 1000,
    }),
    stdioCommands: Object.freeze([...e.GATEWAY_STDIO_COMMANDS]),
    stdioUnsafeNoSandbox: e.GATEWAY_STDIO_UNSAFE_NO_SANDBOX,
    consoleSession: Object.freeze({
      idleSeconds: e.GATEWAY_CONSOLE_SESSION_IDLE_SECONDS,
      maxSeconds: e.GATEWAY_CONSOLE_SESSION_MAX_SECONDS,
    }),
    identity: identityConfigOf(e),
    consoleOidc: consoleOidcConfigOf(e),
  });
}
