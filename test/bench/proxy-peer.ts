// The npm passthrough peer of the proxy benchmark: http-proxy-3 (the maintained successor of
// node-http-proxy, the passthrough proxy most Node services use) in its own Node.js process, one
// listening port per upstream, keep-alive to the upstream. It forwards bytes and decides nothing, so
// it is what a Node reverse proxy costs before any governance: the gateway is measured against it.
// Run as a module it is the peer's process (argv[2]: the upstream ports as JSON); imported, it
// starts that process.
import { spawn } from 'node:child_process';
import http from 'node:http';
import { fileURLToPath } from 'node:url';
import { createProxyServer } from 'http-proxy-3';

export interface Peer {
  /** Base URL (http://127.0.0.1:port) per upstream name. */
  readonly urls: Record<string, string>;
  stop(): Promise<void>;
}

const SELF = fileURLToPath(import.meta.url);

async function serve(upstreams: Record<string, number>): Promise<void> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  const listening: Record<string, number> = {};
  for (const [name, port] of Object.entries(upstreams)) {
    const proxy = createProxyServer({ target: `http://127.0.0.1:${port}`, agent });
    proxy.on('error', (_err, _req, res) => {
      if (res instanceof http.ServerResponse && !res.headersSent) res.writeHead(502).end();
    });
    const server = http.createServer((req, res) => proxy.web(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    listening[name] = (server.address() as { port: number }).port;
  }
  process.stdout.write(`${JSON.stringify(listening)}\n`);
  process.stdin.on('end', () => process.exit(0));
  process.stdin.resume();
}

export async function startPeer(upstreams: Record<string, number>): Promise<Peer> {
  const child = spawn(process.execPath, [SELF, JSON.stringify(upstreams)], { stdio: ['pipe', 'pipe', 'inherit'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const ports = await new Promise<Record<string, number>>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      if (out.includes('\n')) resolve(JSON.parse(out.slice(0, out.indexOf('\n'))));
    });
    child.once('exit', (code) => reject(new Error(`the passthrough peer exited (${code}) before listening`)));
  });
  const urls = Object.fromEntries(Object.entries(ports).map(([name, port]) => [name, `http://127.0.0.1:${port}`]));
  return {
    urls,
    stop: async () => {
      child.stdin!.end();
      await exited;
    },
  };
}

if (process.argv[1] === SELF) await serve(JSON.parse(process.argv[2]!) as Record<string, number>);
