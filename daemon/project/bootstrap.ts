// First start on an empty database: project `default` and one Admin user token for user `admin`,
// written to $GATEWAY_DATA_DIR/admin.token (0600) and never logged. Later starts change nothing.
// Runs under an advisory lock so that daemons starting together create exactly one of each.
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Sql, Tx } from '../db/connect.js';
import { GENESIS_HASH } from '../../shared/ledger-hash.js';
import { appendAdmin } from '../ledger/append.js';
import { adminEntry, SYSTEM_ACTOR } from './admin-actions.js';
import { insertCredential } from './keys.js';

export const DEFAULT_PROJECT_ID = 'default';
const BOOTSTRAP_LOCK = 7_361_002;

/** Creates a project with its chain heads and stop row (used by bootstrap and by tests). */
export async function createProjectRows(tx: Tx, id: string, name: string): Promise<void> {
  await tx`insert into projects (id, name) values (${id}, ${name})`;
  await tx`insert into ledger_heads (project_id, stream, seq, head) values (${id}, 'traces', 0, ${GENESIS_HASH}), (${id}, 'admin', 0, ${GENESIS_HASH})`;
  await tx`insert into project_stops (project_id) values (${id})`;
}

/** Returns true when this call created the project (and wrote the token file). */
export async function bootstrap(sql: Sql, dataDir: string): Promise<boolean> {
  const tokenFile = path.join(dataDir, 'admin.token');
  const temp = `${tokenFile}.${process.pid}.tmp`;
  try {
    return await sql
      .begin(async (tx) => {
        await tx`select pg_advisory_xact_lock(${BOOTSTRAP_LOCK})`;
        const [existing] = await tx`select 1 from projects where id = ${DEFAULT_PROJECT_ID}`;
        if (existing) return false;
        await createProjectRows(tx, DEFAULT_PROJECT_ID, 'default');
        const admin = await insertCredential(
          tx,
          DEFAULT_PROJECT_ID,
          { kind: 'user_token', name: 'bootstrap admin', role: 'admin', userId: 'admin' },
          'system',
        );
        await appendAdmin(tx, DEFAULT_PROJECT_ID, [
          adminEntry(SYSTEM_ACTOR, {
            action: 'project.bootstrap',
            activity: 'create',
            targetType: 'project',
            targetId: DEFAULT_PROJECT_ID,
            details: { admin_credential_id: admin.id },
          }),
        ]);
        // The file is written before COMMIT: if it cannot be written, nothing is created.
        await fs.writeFile(temp, admin.token + '\n', { mode: 0o600 });
        return true;
      })
      .then(async (created) => {
        if (created) await fs.rename(temp, tokenFile);
        return created;
      });
  } finally {
    await fs.rm(temp, { force: true });
  }
}
