// Assembles one daemon: database (embedded unless DATABASE_URL) -> migrations -> bootstrap ->
// trace writer -> routes -> listening server, and takes it apart again in reverse on close().
import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { AgentActivity } from './agents/activity.js';
import { allRoutes } from './api/routes.js';
import type { Deps } from './api/deps.js';
import type { Config } from './config.js';
import { loadSecretBox, type SecretBox } from './crypto/secret-box.js';
import { connect, type Sql } from './db/connect.js';
import { startEmbeddedPostgres, type EmbeddedDatabase } from './db/embedded.js';
import { migrate } from './db/migrate.js';
import { createServer, type GatewayServer } from './http/server.js';
import { TraceWriter } from './ledger/trace-writer.js';
import type { Logger } from './log.js';
import { createMetrics } from './metrics.js';
import { bootstrap } from './project/bootstrap.js';
import { sweepRateWindows } from './project/rate-limit.js';

export interface Gateway {
  readonly url: string;
  readonly sql: Sql;
  readonly writer: TraceWriter;
  readonly http: GatewayServer;
  readonly secretBox: SecretBox;
  close(): Promise<void>;
}

export async function startGateway(config: Config, log: Logger): Promise<Gateway> {
  await fs.mkdir(config.dataDir, { recursive: true, mode: 0o700 });
  const secretBox = await loadSecretBox(config.encryptionKey, config.dataDir);
  const embedded: EmbeddedDatabase | null = config.databaseUrl ? null : await startEmbeddedPostgres(config.dataDir, log);
  const instanceId = randomUUID().slice(0, 8);
  const sql = connect(config.databaseUrl ?? embedded!.url, { max: config.dbPoolMax, instanceId });
  try {
    const applied = await migrate(sql);
    if (applied.length > 0) log.info({ applied }, 'migrations applied');
    if (await bootstrap(sql, config.dataDir)) log.info({ file: `${config.dataDir}/admin.token` }, 'created project default and an admin token');
  } catch (err) {
    await sql.end({ timeout: 5 });
    await embedded?.stop();
    throw err;
  }
  const metrics = createMetrics(sql, instanceId, config.dbPoolMax);
  const writer = new TraceWriter(sql, config.traceBatchMax, {
    batchCommitted: (n, s) => metrics.observeTraceBatch(n, s),
    traceCommitted: (s) => metrics.observeTraceAppend(s),
  });
  const activity = new AgentActivity(sql);
  activity.start((err) => log.warn({ err }, 'agent activity counters not written; kept for the next flush'));
  const deps: Deps = { config, sql, writer, log, metrics, activity, secretBox };
  const http = createServer(allRoutes(deps), { sql, log, metrics, bodyLimitBytes: config.bodyLimitBytes });
  await new Promise<void>((resolve, reject) => {
    http.server.once('error', reject);
    http.server.listen(config.listen.port, config.listen.host, () => resolve());
  });
  const address = http.server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const url = `http://${host}:${address.port}`;
  const sweeper = setInterval(() => { sweepRateWindows(sql).catch(() => undefined); }, 60_000).unref();
  log.info({ url, instanceId, database: embedded ? 'embedded' : 'external' }, 'gatewayd listening');

  let closing: Promise<void> | null = null;
  return {
    url, sql, writer, http, secretBox,
    close() {
      closing ??= (async () => {
        clearInterval(sweeper);
        await http.close(config.shutdownTimeoutMs);
        await writer.flush();
        await activity.stop().catch((err: unknown) => log.warn({ err }, 'agent activity counters lost at shutdown'));
        await sql.end({ timeout: 5 });
        await embedded?.stop();
        log.info('gatewayd stopped');
      })();
      return closing;
    },
  };
}
