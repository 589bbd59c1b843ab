// `npm run bench`: every benchmark, each printing its figures next to a baseline measured in the
// same run. Uses DATABASE_URL's server, or an embedded PostgreSQL when it is unset.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startEmbeddedPostgres } from '../../daemon/db/embedded.js';
import { createLogger } from '../../daemon/log.js';
import { benchTraceAppend } from './trace-append.js';

async function main(): Promise<void> {
  let url = process.env.DATABASE_URL;
  let stop: (() => Promise<void>) | null = null;
  if (!url) {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'gw-bench-pg-'));
    const db = await startEmbeddedPostgres(dir, createLogger('warn'));
    url = db.url;
    stop = async () => { await db.stop(); await fs.rm(dir, { recursive: true, force: true }); };
  }
  console.log(`node ${process.version}, ${os.cpus().length} cores, database ${process.env.DATABASE_URL ? 'DATABASE_URL' : 'embedded'}`);
  try {
    await benchTraceAppend(url);
  } finally {
    await stop?.();
  }
}

void main();
