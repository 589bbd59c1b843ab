// Assembles one daemon: database (embedded unless DATABASE_URL) -> migrations -> bootstrap ->
// trace writer -> routes -> listening server, and takes it apart again in reverse on close().
import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { AgentActivity } from './agents/activity.js';
import { loadAnchorKey } from './anchor/key.js';
import { registerAnchorMetrics } from './anchor/metrics.js';
import { createAnchorService } from './anchor/service.js';
import { allRoutes } from './api/routes.js';
import { createMcpProxy, type McpProxy } from './api/v1/mcp-proxy.js';
import type { Deps } from './deps.js';
import { defaultPublicUrl, type Config } from './config.js';
import { loadCheckpointKey } from './crypto/checkpoint-key.js';
import { loadSecretBox, type SecretBox } from './crypto/secret-box.js';
import { attachAvailability, DatabaseAvailability } from './db/availability.js';
import { connect, type Sql } from './db/connect.js';
import { startEmbeddedPostgres, type EmbeddedDatabase } from './db/embedded.js';
import { migrate } from './db/migrate.js';
import { createServer, type GatewayServer } from './http/server.js';
import { originOf } from './http/origin.js';
import { runCheckpoints, type StoredCheckpoint } from './ledger/checkpoints.js';
import { DeadLetterQueue } from './ledger/dlq.js';
import { TraceWriter } from './ledger/trace-writer.js';
import type { Logger } from './log.js';
import { createMetrics } from './metrics.js';
import { startDeliveries } from './delivery/deliver.js';
import { registerStopHook } from './approvals/store.js';
import { ApprovalEventStreams } from './approvals/event-stream.js';
import { expireApprovals } from './approvals/expiry.js';
import { attachCodeFlow, attachResourceServer, startResourceServer } from './identity/index.js';
import { createUpstreamDispatcher } from './mcp/client/ssrf-guard.js';
import { afterServerStop } from './mcp/servers/emergency-stop.js';
import { AllowedCommands } from './mcp/stdio/allowed-commands.js';
import { checkSandbox } from './mcp/stdio/sandbox-check.js';
import { StdioServers } from './mcp/stdio/stdio-servers.js';
import { afterStopSet } from './project/emergency-stop.js';
import { bootstrap } from './project/bootstrap.js';
import { startStateCache } from './state-cache/index.js';
import { attachLastKnown, DEFAULT_MAX_ENTRIES, LastKnownState } from './state-cache/last-known.js';
import { closeAttachmentWorkers } from './verify/attachments/index.js';
import { closeInspectionWorkers, configureInspection } from './mcp/content/inspect-pool.js';
import { loadOnnxClassifier } from './models/onnx-classifier.js';
import { warmSecretRules } from './detectors/secret-warm.js';
import { seedDefaultPolicies, warmDetectors } from './verify/prompt-policies.js';
import { sweepRateWindows } from './project/rate-limit.js';
import { runRetention, type Purge } from './traces/retention.js';
import { every } from './workers/periodic.js';

export interface Gateway {
  readonly url: string;
  readonly sql: Sql;
  readonly writer: TraceWriter;
  readonly http: GatewayServer;
  readonly secretBox: SecretBox;
  /** The MCP proxy's routes and its batched call outcomes (tests flush them to read them). */
  readonly mcpProxy: McpProxy;
  /** Runs a checkpoint pass now (the worker also runs one every interval). */
  checkpointNow(): Promise<StoredCheckpoint[]>;
  /** Runs a retention pass now, as of `now` (the worker also runs one every interval). */
  retainNow(now?: Date): Promise<Purge[]>;
  close(): Promise<void>;
}

export async function startGateway(config: Config, log: Logger): Promise<Gateway> {
  await fs.mkdir(config.dataDir, { recursive: true, mode: 0o700 });
  registerStopHook();
  configureInspection(config.inspectionOffload);
  const secretBox = await loadSecretBox(config.encryptionKey, config.dataDir);
  const defaultKeyFile = config.checkpointKeyFile === path.join(config.dataDir, 'checkpoint.key');
  const checkpointKey = await loadCheckpointKey(config.checkpointKeyFile, config.ledgerOrigin, defaultKeyFile);
  const anchorAccount = config.anchor ? await loadAnchorKey(config.anchor.keyFile) : null;
  // Before the database: a model directory that does not load stops the start with nothing to undo.
  const injectionModel = config.injectionModelDir ? await loadOnnxClassifier(config.injectionModelDir) : null;
  if (injectionModel)
    log.info({ dir: injectionModel.dir, labels: injectionModel.labels, maxTokens: injectionModel.maxTokens }, 'injection model loaded');
  const embedded: EmbeddedDatabase | null = config.databaseUrl ? null : await startEmbeddedPostgres(config.dataDir, log);
  const instanceId = randomUUID().slice(0, 8);
  const sql = connect(config.databaseUrl ?? embedded!.url, { max: config.dbPoolMax, instanceId });
  // Degraded mode (docs/operations.md): known-down database, and the state last read to decide from meanwhile.
  const availability = new DatabaseAvailability(config.databaseUrl ?? embedded!.url, { log, instanceId });
  attachAvailability(sql, availability);
  attachLastKnown(sql, new LastKnownState({ maxAgeMs: config.outageStateMaxAgeMs, maxEntries: DEFAULT_MAX_ENTRIES }));
  try {
    const applied = await migrate(sql);
    if (applied.length > 0) log.info({ applied }, 'migrations applied');
    if (await bootstrap(sql, config.dataDir))
      log.info({ file: `${config.dataDir}/admin.token` }, 'created project default and an admin token');
    warmDetectors();
    const seeded = await seedDefaultPolicies(sql);
    if (seeded.length > 0) log.info({ projects: seeded }, 'default prompt policies created');
  } catch (err) {
    await sql.end({ timeout: 5 });
    await embedded?.stop();
    throw err;
  }
  const metrics = createMetrics(sql, instanceId, config.dbPoolMax);
  const writer = new TraceWriter(
    sql,
    config.traceBatchMax,
    {
      batchCommitted: (n, s) => metrics.observeTraceBatch(n, s),
      traceCommitted: (s) => metrics.observeTraceAppend(s),
      persisted: (to, n) => metrics.observeTracePersisted(to, n),
      dlqReplayed: (n) => metrics.observeDlqReplayed(n),
      dlqSetAside: (kind) => metrics.observeDlqSetAside(kind),
    },
    { dlq: new DeadLetterQueue(path.join(config.dataDir, 'dlq')), log: log.child({ subsystem: 'trace-writer' }), availability },
  );
  try {
    await writer.start();
  } catch (err) {
    await sql.end({ timeout: 5 });
    await embedded?.stop();
    throw err;
  }
  metrics.watchTraceStore(() => writer.status());
  const activity = new AgentActivity(sql);
  activity.start((err) => log.warn({ err }, 'agent activity counters not written; kept for the next flush'));
  const upstream = createUpstreamDispatcher({ allow: config.upstreamAllow, connectTimeoutMs: config.upstreamTimeoutMs });
  // Gates read server, tool, rule, agent and credential state from memory, invalidated by NOTIFY.
  const stateCache = await startStateCache(sql, config.databaseUrl ?? embedded!.url, { registry: metrics.registry, log, instanceId });
  let listeningAt = ''; // set once listening: the default public URL needs the port actually bound
  const publicUrl = () => config.publicUrl ?? listeningAt;
  // The browser origin of that URL (http/origin.ts), known once listening when it is the listen address.
  let ownOrigin = config.publicUrl === null ? null : originOf(config.publicUrl);
  if (config.identity) {
    const identityDeps = { dispatcher: upstream, timeoutMs: config.upstreamTimeoutMs, publicUrl, log };
    const { resourceServer, codeFlow } = startResourceServer(config.identity, identityDeps, config.consoleOidc);
    attachResourceServer(sql, resourceServer, identityDeps);
    if (codeFlow) attachCodeFlow(sql, codeFlow);
  }
  const deps: Deps = { config, publicUrl, sql, writer, log, metrics, activity, secretBox, checkpointKey, upstream, injectionModel };
  const stdio = await startStdioServers(config, log);
  const mcpProxy = createMcpProxy(deps, stdio);
  const unhook = [
    afterStopSet(async (projectId) => void (await stdio.stopProject(projectId))),
    afterServerStop(async (serverId) => void (await stdio.stopServer(serverId))),
  ];
  const anchor = await createAnchorService(config.anchor, anchorAccount, sql, log);
  registerAnchorMetrics(metrics.registry, sql, anchor.settings);
  const approvalEvents = new ApprovalEventStreams(sql, config.approvalEvents);
  const http = createServer(allRoutes(deps, mcpProxy, anchor, stdio, approvalEvents), {
    sql,
    log,
    metrics,
    bodyLimitBytes: config.bodyLimitBytes,
    allowedOrigins: config.allowedOrigins,
    ownOrigin: () => ownOrigin,
    degradedSubsystems: () => [...writer.degradedSubsystems(), ...availability.degradedSubsystems()],
  });
  await new Promise<void>((resolve, reject) => {
    http.server.once('error', reject);
    http.server.listen(config.listen.port, config.listen.host, () => resolve());
  });
  const address = http.server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const url = `http://${host}:${address.port}`;
  listeningAt = defaultPublicUrl(config.listen.host, address.port);
  ownOrigin ??= originOf(listeningAt);
  const sweeper = setInterval(() => {
    sweepRateWindows(sql).catch(() => undefined);
  }, 60_000).unref();
  const checkpointNow = () => runCheckpoints(sql, checkpointKey, config.ledgerOrigin);
  const retainNow = (now?: Date) => runRetention(sql, now);
  const checkpointer = every(config.checkpointIntervalMs, config.checkpointIntervalMs, 'checkpoints', log, async () => {
    const written = await checkpointNow();
    if (written.length > 0)
      log.info({ checkpoints: written.map((c) => ({ project: c.project_id, size: c.tree_size })) }, 'checkpoints signed');
  });
  const retention = every(config.retentionIntervalMs, 60_000, 'retention', log, async () => {
    for (const p of await retainNow())
      log.info({ project: p.project_id, deleted: p.deleted, cutoff: p.cutoff }, 'retention purged trace content');
  });
  anchor.start();
  // Outbound notifications: every daemon delivers from the shared outbox and sweeps expired approvals.
  const notifications = startDeliveries(
    { sql, log: log.child({ subsystem: 'notifications' }), secretBox, consoleUrl: () => `${publicUrl()}/console/` },
    { ...config.notifications, allow: config.upstreamAllow },
  );
  const expiry = every(config.notifications.pollMs, config.notifications.pollMs, 'approval-expiry', log, () => expireApprovals(sql));
  log.info({ url, instanceId, database: embedded ? 'embedded' : 'external' }, 'gatewayd listening');
  // Compiling the secret rules costs seconds of CPU; it runs in the background one rule per tick,
  // and a rule a request needs first is compiled on demand.
  // It starts a moment after listening, so start-up and early requests do not queue behind it, and
  // stops at shutdown.
  const warming = new AbortController();
  const warmTimer = setTimeout(() => {
    void warmSecretRules(warming.signal).then(
      (r) => {
        if (!warming.signal.aborted) log.info({ compiled: r.compiled, dropped: r.dropped.length }, 'secret rules compiled');
      },
      (err: unknown) => log.warn({ err }, 'secret rules could not all be compiled ahead; they compile on first use'),
    );
  }, 1000).unref();

  let closing: Promise<void> | null = null;
  return {
    url,
    sql,
    writer,
    http,
    secretBox,
    mcpProxy,
    checkpointNow,
    retainNow,
    close() {
      closing ??= (async () => {
        embedded?.release(); // its exit from now on is ours, not one to restart
        clearInterval(sweeper);
        clearTimeout(warmTimer);
        warming.abort();
        await Promise.all([checkpointer.stop(), retention.stop(), anchor.stop(), notifications.stop(), expiry.stop()]);
        approvalEvents.close();
        await http.close(config.shutdownTimeoutMs);
        for (const remove of unhook) remove();
        await Promise.all([
          stdio.close(),
          closeAttachmentWorkers(),
          closeInspectionWorkers(),
          upstream.close().catch(() => undefined),
          injectionModel?.close().catch(() => undefined),
        ]);
        await mcpProxy.outcomes.flush().catch((err: unknown) => log.warn({ err }, 'MCP call outcomes not written at shutdown'));
        await writer.close();
        await activity.stop().catch((err: unknown) => log.warn({ err }, 'agent activity counters lost at shutdown'));
        await stateCache.close();
        await availability.close();
        await sql.end({ timeout: 5 });
        await embedded?.stop();
        log.info('gatewayd stopped');
      })();
      return closing;
    },
  };
}

/** Stdio MCP servers: which programs may run, and whether bubblewrap confines them (a log line either way; the daemon starts regardless). */
async function startStdioServers(config: Config, log: Logger): Promise<StdioServers> {
  const sandbox = await checkSandbox(config.stdioUnsafeNoSandbox);
  const commands = new AllowedCommands(config.stdioCommands, process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin');
  if (commands.empty) log.info({ sandbox: sandbox.mode }, 'stdio servers off (GATEWAY_STDIO_COMMANDS is empty)');
  else if (sandbox.mode === 'sandboxed') log.info({ commands: commands.entries, sandbox: sandbox.mode }, 'stdio servers on, in bubblewrap');
  else if (sandbox.mode === 'unsafe') log.warn({ commands: commands.entries, sandbox: sandbox.mode }, sandbox.reason);
  else log.error({ commands: commands.entries, sandbox: sandbox.mode }, `stdio servers refused: ${sandbox.reason}`);
  const hidden = [config.dataDir, path.dirname(config.checkpointKeyFile)];
  if (config.anchor) hidden.push(path.dirname(config.anchor.keyFile));
  return new StdioServers({ commands, sandbox, homesDir: path.join(config.dataDir, 'stdio'), hidden, log });
}
