#!/usr/bin/env node
// gatewayd: read configuration, start the gateway, say so to a person at a terminal, stop cleanly
// on SIGTERM/SIGINT (exit 0).
import { loadConfig, ConfigError } from './config.js';
import { startGateway } from './app.js';
import { createLogger } from './log.js';
import { readyLine } from './ready-line.js';

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
  const log = createLogger(config.logLevel);
  let gateway: Awaited<ReturnType<typeof startGateway>>;
  try {
    gateway = await startGateway(config, log);
  } catch (err) {
    log.fatal({ err }, 'start-up failed');
    process.stderr.write(`gatewayd: start-up failed: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  }
  // A person at a terminal gets one plain line beside the JSON logs (a service manager gets only the logs).
  if (process.stderr.isTTY)
    process.stderr.write(`${readyLine({ url: gateway.url, databaseUrl: config.databaseUrl, dataDir: config.dataDir })}\n`);
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down');
    gateway.close().then(
      () => process.exit(0),
      (err: unknown) => {
        log.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

void main();
