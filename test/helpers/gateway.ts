// Starts a real gatewayd in-process on port 0 against a throwaway database, plus a small client.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import type postgres from 'postgres';
import type { Test } from 'tap';
import { startGateway, type Gateway } from '../../daemon/app.js';
import { loadConfig } from '../../daemon/config.js';
import { createLogger } from '../../daemon/log.js';
import { randomUUID } from 'node:crypto';
import { STATE_CHANNEL } from '../../daemon/state-cache/listener.js';
import { stateCacheOf } from '../../daemon/state-cache/pool-attachment.js';
import { freshDatabase, inspect } from './db.js';

export interface ApiResponse {
  status: number;
  headers: Headers;
  // biome-ignore lint/suspicious/noExplicitAny: the parsed answer of any route; tests read it by path
  body: any;
  text: string;
}

export interface TestGateway {
  readonly url: string;
  readonly databaseUrl: string;
  readonly dataDir: string;
  readonly adminToken: string;
  readonly gateway: Gateway;
  readonly db: postgres.Sql;
  readonly logLines: string[];
  api(
    method: string,
    route: string,
    options?: { token?: string | null; body?: unknown; headers?: Record<string, string> },
  ): Promise<ApiResponse>;
  /**
   * Resolves once this daemon's state cache has seen every change committed before the call (a
   * raw SQL write by the test reaches the cache only through its notification, which is async).
   */
  settled(): Promise<void>;
  /** Creates a credential through the API and returns its token. */
  key(role: 'viewer' | 'editor' | 'admin', userId?: string): Promise<string>;
}

export interface GatewayOptions {
  databaseUrl?: string;
  env?: Record<string, string>;
}

export async function startTestGateway(t: Test, options: GatewayOptions = {}): Promise<TestGateway> {
  const databaseUrl = options.databaseUrl ?? (await freshDatabase(t));
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'gw-test-'));
  const config = loadConfig({
    DATABASE_URL: databaseUrl,
    GATEWAY_DATA_DIR: dataDir,
    GATEWAY_LISTEN: '127.0.0.1:0',
    GATEWAY_LOG_LEVEL: 'info',
    GATEWAY_SHUTDOWN_TIMEOUT_SECONDS: '5',
    ...options.env,
  });
  const logLines: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      logLines.push(String(chunk));
      done();
    },
  });
  const gateway = await startGateway(config, createLogger(config.logLevel, sink));
  t.teardown(async () => {
    await gateway.close();
    await fs.rm(dataDir, { recursive: true, force: true });
  });
  const tokenFile = path.join(dataDir, 'admin.token');
  const adminToken = (await fs.readFile(tokenFile, 'utf8').catch(() => '')).trim();
  const db = inspect(t, databaseUrl);

  const api: TestGateway['api'] = async (method, route, opts = {}) => {
    const headers: Record<string, string> = { ...opts.headers };
    const token = opts.token === undefined ? adminToken : opts.token;
    if (token) headers.authorization = `Bearer ${token}`;
    let body: string | undefined;
    if (opts.body !== undefined) {
      body = typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body);
      headers['content-type'] ??= 'application/json';
    }
    const res = await fetch(gateway.url + route, { method, headers, body });
    const text = await res.text();
    let parsed: unknown = null;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      parsed = null;
    }
    return { status: res.status, headers: res.headers, body: parsed, text };
  };

  const settled = async (): Promise<void> => {
    const cache = stateCacheOf(gateway.sql);
    if (!cache?.connected) return; // reads go to the database anyway
    const marker = randomUUID();
    await db`select pg_notify(${STATE_CHANNEL}, ${JSON.stringify({ t: 'marker', m: marker })})`;
    const deadline = Date.now() + 10_000;
    while (!cache.hasSeen(marker)) {
      if (Date.now() > deadline) throw new Error('the state cache did not see the marker notification within 10 s');
      await new Promise((r) => setTimeout(r, 5));
    }
  };

  return {
    url: gateway.url,
    databaseUrl,
    dataDir,
    adminToken,
    gateway,
    db,
    logLines,
    api,
    settled,
    async key(role, userId) {
      const res = await api('POST', '/api/v1/keys', { body: { name: `${role} key`, role, ...(userId ? { user_id: userId } : {}) } });
      if (res.status !== 201) throw new Error(`key creation failed: ${res.status} ${res.text}`);
      return res.body.key as string;
    },
  };
}
