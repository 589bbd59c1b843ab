// Forward-only migrations: sql/NNNNN_name.sql applied in order, each once, all inside one
// transaction under an advisory lock so that daemons starting together on one database do not race.
// Each applied file is recorded with its SHA-256; a changed, already-applied file stops start-up.
// Order is part of the contract: a file numbered below the highest one applied would run in a
// different order here than on a fresh database, so it stops start-up too (see refuseOutOfOrder).
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { Sql } from './connect.js';

export const SQL_DIR = fileURLToPath(new URL('../../../sql/', import.meta.url));
const MIGRATION_LOCK = 7_361_001; // advisory lock key reserved for migrations
/**
 * Files up to this number shipped before the order rule, some of them below a file already applied
 * at the time (00005 after 00008-00010, 00011 and 00012 after 00013): a database last upgraded
 * then may still lack them, and they are applied as they always were.
 */
export const LAST_UNORDERED_MIGRATION = 15;

export class MigrationError extends Error {}

export interface MigrationFile {
  readonly name: string;
  readonly text: string;
  readonly checksum: string;
}

export async function readMigrations(dir: string = SQL_DIR): Promise<MigrationFile[]> {
  const names = (await fs.readdir(dir)).filter((n) => /^\d{5}_[a-z0-9_]+\.sql$/.test(n)).sort();
  return Promise.all(
    names.map(async (name) => {
      const text = await fs.readFile(dir + name, 'utf8');
      return { name, text, checksum: createHash('sha256').update(text).digest('hex') };
    }),
  );
}

const numberOf = (name: string): number => Number(name.slice(0, 5));

/** Every pending file must come after the highest applied one (files of the unordered past excepted). */
function refuseOutOfOrder(pending: readonly MigrationFile[], applied: Iterable<string>): void {
  const highest = [...applied].sort().at(-1);
  if (highest === undefined) return;
  const early = pending.find((m) => numberOf(m.name) > LAST_UNORDERED_MIGRATION && numberOf(m.name) < numberOf(highest));
  if (early) {
    throw new MigrationError(
      `migration ${early.name} is numbered below ${highest}, the highest already applied: a fresh database would apply them in a different order; give it a number above ${highest.slice(0, 5)}`,
    );
  }
}

/** Applies pending migrations; returns the names applied by this call. */
export async function migrate(sql: Sql, files?: MigrationFile[]): Promise<string[]> {
  const migrations = files ?? (await readMigrations());
  return sql.begin(async (tx) => {
    await tx`select pg_advisory_xact_lock(${MIGRATION_LOCK})`;
    await tx`create table if not exists schema_migrations (
      name text primary key, checksum text not null, applied_at timestamptz not null default now())`;
    const applied = new Map(
      (await tx<{ name: string; checksum: string }[]>`select name, checksum from schema_migrations`).map((r) => [r.name, r.checksum]),
    );
    for (const m of migrations) {
      const known = applied.get(m.name);
      if (known !== undefined && known !== m.checksum) {
        throw new MigrationError(
          `migration ${m.name} was changed after it was applied (checksum ${known.slice(0, 12)} in the database, ${m.checksum.slice(0, 12)} on disk); migrations are forward-only: add a new file instead`,
        );
      }
    }
    const pending = migrations.filter((m) => !applied.has(m.name));
    refuseOutOfOrder(pending, applied.keys());
    const done: string[] = [];
    for (const m of pending) {
      await tx.unsafe(m.text);
      await tx`insert into schema_migrations (name, checksum) values (${m.name}, ${m.checksum})`;
      done.push(m.name);
    }
    return done;
  });
}
