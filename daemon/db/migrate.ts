// Forward-only migrations: sql/NNNNN_name.sql applied in order, each once, all inside one
// transaction under an advisory lock so that daemons starting together on one database do not race.
// Each applied file is recorded with its SHA-256; a changed, already-applied file stops start-up.
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { Sql } from './connect.js';

export const SQL_DIR = fileURLToPath(new URL('../../../sql/', import.meta.url));
const MIGRATION_LOCK = 7_361_001; // advisory lock key reserved for migrations

export class MigrationError extends Error {}

export interface MigrationFile {
  readonly name: string;
  readonly text: string;
  readonly checksum: string;
}

export async function readMigrations(dir: string = SQL_DIR): Promise<MigrationFile[]> {
  const names = (await fs.readdir(dir)).filter((n) => /^\d{5}_[a-z0-9_]+\.sql$/.test(n)).sort();
  return Promise.all(names.map(async (name) => {
    const text = await fs.readFile(dir + name, 'utf8');
    return { name, text, checksum: createHash('sha256').update(text).digest('hex') };
  }));
}

/** Applies pending migrations; returns the names applied by this call. */
export async function migrate(sql: Sql, files?: MigrationFile[]): Promise<string[]> {
  const migrations = files ?? (await readMigrations());
  return sql.begin(async (tx) => {
    await tx`select pg_advisory_xact_lock(${MIGRATION_LOCK})`;
    await tx`create table if not exists schema_migrations (
      name text primary key, checksum text not null, applied_at timestamptz not null default now())`;
    const applied = new Map((await tx<{ name: string; checksum: string }[]>`select name, checksum from schema_migrations`)
      .map((r) => [r.name, r.checksum]));
    const done: string[] = [];
    for (const m of migrations) {
      const known = applied.get(m.name);
      if (known !== undefined) {
        if (known !== m.checksum) {
          throw new MigrationError(`migration ${m.name} was changed after it was applied (checksum ${known.slice(0, 12)} in the database, ${m.checksum.slice(0, 12)} on disk); migrations are forward-only: add a new file instead`);
        }
        continue;
      }
      await tx.unsafe(m.text);
      await tx`insert into schema_migrations (name, checksum) values (${m.name}, ${m.checksum})`;
      done.push(m.name);
    }
    return done;
  });
}
