#!/usr/bin/env node
// gatewayd: read configuration, start the gateway, say so to a person at a terminal, stop cleanly
// on SIGTERM/SIGINT (exit 0) within a bounded time, whatever happened to whoever reads its output.
import { loadConfig, ConfigError } from './config.js';
import { startGateway } from './app.js';
import { createLogger, flushLogs } from './log.js';
import { readyLine } from './ready-line.js';

/** After the request deadline, what the rest of a stop may take (flushes, the pool, the embedded database). */
const SHUTDOWN_MARGIN_MS = 30_000;
/** How long the last log lines may wait for a reader at exit before they are given up. */
const LOG_FLUSH_MS = 2_000;

async function main(): Promise<void> {
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`gatewayd: ${err.message}\n`);
      process.exit(78); // EX_CONFIG
    }
    throw err;
  }
  // A reader of stderr (`2>&1 | tee`) may go away too: a failed write of the ready line is nobody's business.
  process.stderr.on('error', () => undefined);
  const log = createLogger(config.logLevel);
  let gateway: Awaited<ReturnType<typeof startGateway>>;
  try {
    gateway = await startGateway(config, log);
  } catch (err) {
    log.fatal({ err }, 'start-up failed');
    process.stderr.write(`gatewayd: start-up failed: ${err instanceof Error ? err.message : String(err)}\n`);
    await flushLogs(LOG_FLUSH_MS);
    process.exit(1);
  }
  // A person at a terminal gets one plain line beside the JSON logs (a service manager gets only the logs).
  if (process.stderr.isTTY)
    process.stderr.write(`${readyLine({ url: gateway.url, databaseUrl: config.databaseUrl, dataDir: config.dataDir })}\n`);
  let stopping = false;
  const exit = async (code: number) => {
    await flushLogs(LOG_FLUSH_MS);
    process.exit(code);
  };
  const stop = (signal: string) => {
    if (stopping) {
      // A second signal: the operator will not wait for the first stop to finish.
      log.warn({ signal }, 'second signal during shutdown: exiting now');
      void exit(1);
      return;
    }
    stopping = true;
    log.info({ signal }, 'shutting down');
    // The stop is bounded: past the request deadline and a margin, exit 1 rather than hang.
    const budget = config.shutdownTimeoutMs + SHUTDOWN_MARGIN_MS;
    setTimeout(() => {
      log.error({ budgetMs: budget }, 'shutdown did not finish within its budget: exiting');
      void exit(1);
    }, budget).unref();
    gateway.close().then(
      () => exit(0),
      (err: unknown) => {
        log.error({ err }, 'shutdown failed');
        return exit(1);
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

void main();
