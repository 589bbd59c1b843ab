// nginx as a plain reverse proxy in front of the benchmark's upstreams: the Debian package's binary
// in the foreground (`-g 'daemon off;'`) with a generated configuration in a temporary prefix, one
// listening port per upstream. One worker process (the gateway is one Node.js process too, and the
// machine has 2 cores shared with the upstream, the database and the load generator), no access log,
// HTTP/1.1 keep-alive to the upstream, no buffering either way, so event streams flow through.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs/promises';
import net from 'node:net';
import { freeLoopbackPort } from '../helpers/ports.js';
import os from 'node:os';
import path from 'node:path';

export const NGINX_BIN = process.env.BENCH_NGINX ?? '/usr/sbin/nginx';

export interface Nginx {
  /** Base URL (http://127.0.0.1:port) per upstream name. */
  readonly urls: Record<string, string>;
  stop(): Promise<void>;
}

function config(prefix: string, upstreams: Record<string, number>, listen: Record<string, number>): string {
  const blocks = Object.entries(upstreams)
    .map(
      ([name, port], i) => `
  upstream u${i} { server 127.0.0.1:${port}; keepalive 64; }
  server {
    listen 127.0.0.1:${listen[name]!};
    location / {
      proxy_pass http://u${i};
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_buffering off;
      proxy_request_buffering off;
    }
  }`,
    )
    .join('\n');
  return `worker_processes 1;
pid ${prefix}/nginx.pid;
error_log ${prefix}/error.log warn;
events { worker_connections 1024; }
http {
  access_log off;
  keepalive_requests 1000000;
  client_body_temp_path ${prefix}/client_body;
  proxy_temp_path ${prefix}/proxy;
  fastcgi_temp_path ${prefix}/fastcgi;
  uwsgi_temp_path ${prefix}/uwsgi;
  scgi_temp_path ${prefix}/scgi;
${blocks}
}
`;
}

async function waitListening(port: number, child: ChildProcess, log: () => Promise<string>): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`nginx exited (${child.exitCode}): ${await log()}`);
    const ok = await new Promise<boolean>((resolve) => {
      const s = net.connect(port, '127.0.0.1', () => {
        s.destroy();
        resolve(true);
      });
      s.on('error', () => resolve(false));
    });
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`nginx did not listen on ${port}: ${await log()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Null (and the reason printed) when there is no nginx binary. */
export async function startNginx(upstreams: Record<string, number>): Promise<Nginx | null> {
  try {
    await fs.access(NGINX_BIN, fs.constants.X_OK);
  } catch {
    console.log(`  ${NGINX_BIN} not found: the nginx column is skipped`);
    return null;
  }
  const prefix = await fs.mkdtemp(path.join(os.tmpdir(), 'gw-bench-nginx-'));
  await fs.chmod(prefix, 0o755); // workers run as nobody when started as root
  const listen: Record<string, number> = {};
  for (const name of Object.keys(upstreams)) listen[name] = await freeLoopbackPort();
  await fs.writeFile(path.join(prefix, 'nginx.conf'), config(prefix, upstreams, listen));
  const child = spawn(
    NGINX_BIN,
    ['-p', prefix, '-e', path.join(prefix, 'error.log'), '-c', path.join(prefix, 'nginx.conf'), '-g', 'daemon off;'],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr!.on('data', (c: Buffer) => {
    stderr += c.toString();
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const log = async () => stderr + (await fs.readFile(path.join(prefix, 'error.log'), 'utf8').catch(() => ''));
  const stop = async () => {
    if (child.exitCode === null) child.kill('SIGQUIT'); // graceful: workers finish, then the master exits
    await exited;
    await fs.rm(prefix, { recursive: true, force: true });
  };
  try {
    for (const port of Object.values(listen)) await waitListening(port, child, log);
  } catch (err) {
    await stop();
    throw err;
  }
  const urls = Object.fromEntries(Object.entries(listen).map(([name, port]) => [name, `http://127.0.0.1:${port}`]));
  return { urls, stop };
}
