// The PostgreSQL server that tests and benchmarks run against: DATABASE_URL's, or an embedded one
// started in a temporary directory (and removed afterwards) when it is unset.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startEmbeddedPostgres } from '../../daemon/db/embedded.js';
import { createLogger } from '../../daemon/log.js';

export interface DatabaseServer {
  readonly url: string;
  readonly embedded: boolean;
  stop(): Promise<void>;
}

export async function databaseServer(purpose: string): Promise<DatabaseServer> {
  const url = process.env.DATABASE_URL;
  if (url) return { url, embedded: false, stop: async () => {} };
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), `gw-${purpose}-pg-`));
  const db = await startEmbeddedPostgres(dir, createLogger('warn'));
  // The server runs in a session of its own, so a Ctrl-C or SIGTERM meant for the run does not
  // reach it: stop it before going.
  const onSignal = (signal: NodeJS.Signals) => {
    void db
      .stop()
      .finally(() => fs.rm(dir, { recursive: true, force: true }))
      .finally(() => process.kill(process.pid, signal));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  return {
    url: db.url,
    embedded: true,
    async stop() {
      process.removeListener('SIGINT', onSignal);
      process.removeListener('SIGTERM', onSignal);
      await db.stop();
      await fs.rm(dir, { recursive: true, force: true });
    },
  };
}
