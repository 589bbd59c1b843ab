// Direct database setup for tests of modules below the HTTP layer.
import type { Test } from 'tap';
import { connect, type Sql } from '../../daemon/db/connect.js';
import { migrate } from '../../daemon/db/migrate.js';
import { createProjectRows } from '../../daemon/project/bootstrap.js';
import { freshDatabase } from './db.js';

/** A migrated throwaway database with project `p1`, and a gateway-side pool onto it. */
export async function migratedDatabase(t: Test, poolMax = 10): Promise<{ url: string; sql: Sql }> {
  const url = await freshDatabase(t);
  const sql = connect(url, { max: poolMax, instanceId: 'test' });
  t.teardown(() => sql.end({ timeout: 1 }));
  await migrate(sql);
  await sql.begin((tx) => createProjectRows(tx, 'p1', 'project one'));
  return { url, sql };
}
