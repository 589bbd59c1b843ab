// A throwaway database per test (file) on the suite's PostgreSQL, dropped at teardown.
import { randomBytes } from 'node:crypto';
import postgres from 'postgres';
import type { Test } from 'tap';

export function adminDatabaseUrl(): string {
  const url = process.env.TEST_ADMIN_DATABASE_URL || process.env.DATABASE_URL;
  if (!url) throw new Error('tests need TEST_ADMIN_DATABASE_URL or DATABASE_URL: run them with `npm test`');
  return url;
}

export function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = '/' + name;
  return u.toString();
}

export async function freshDatabase(t: Test): Promise<string> {
  const admin = adminDatabaseUrl();
  const name = 'gwt_' + randomBytes(6).toString('hex');
  const sql = postgres(admin, { max: 1, onnotice: () => {} });
  await sql.unsafe(`create database ${name}`);
  await sql.end();
  t.teardown(async () => {
    const drop = postgres(admin, { max: 1, onnotice: () => {} });
    await drop.unsafe(`drop database if exists ${name} with (force)`);
    await drop.end();
  });
  return withDatabase(admin, name);
}

/** A superuser-side connection to a test database, for assertions on what was (not) written. */
export function inspect(t: Test, url: string): postgres.Sql {
  const sql = postgres(url, { max: 2, onnotice: () => {} });
  t.teardown(() => sql.end({ timeout: 1 }));
  return sql;
}
