// A benchmark's own database on the benchmark server and its own data directory for gatewayd:
// created fresh, dropped and removed at the end, so runs never share state.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import { withDatabase } from '../helpers/db.js';

export interface BenchDatabase {
  /** The fresh database's URL, for gatewayd. */
  readonly url: string;
  /** A small pool on it, for the benchmark's own reads and writes. */
  readonly sql: postgres.Sql;
  readonly dataDir: string;
  /** Closes the pool, drops the database, removes the data directory. */
  close(): Promise<void>;
}

export async function openBenchDatabase(adminUrl: string, dirPrefix: string): Promise<BenchDatabase> {
  const name = 'gwbench_' + randomBytes(4).toString('hex');
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${name}`);
  const url = withDatabase(adminUrl, name);
  const sql = postgres(url, { max: 2, onnotice: () => {} });
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), dirPrefix));
  return {
    url,
    sql,
    dataDir,
    async close() {
      await sql.end();
      await fs.rm(dataDir, { recursive: true, force: true });
      await admin.unsafe(`drop database if exists ${name} with (force)`);
      await admin.end();
    },
  };
}

/** The load average now, as the benchmarks print it. */
export const loadAverage = (): string =>
  os
    .loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');
