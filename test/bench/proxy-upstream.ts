// The upstream of the proxy benchmark, run as its own process (`node proxy-upstream.js`) so that it
// does not share the benchmark's event loop: @modelcontextprotocol/sdk 1.x McpServer +
// StreamableHTTPServerTransport with one cheap tool, `echo`, on 127.0.0.1, once per mode:
//   stateless-json  no sessions, a fresh server and transport per request (the SDK's stateless
//                   pattern), enableJsonResponse: each answer one application/json body;
//   stateless-sse   the same, answered as a text/event-stream;
//   session-json    sessions (initialize first, then Mcp-Session-Id), one transport per session;
//   session-sse     the same, answered as an event stream.
// Prints one line, {"stateless-json": port, ...}, once every server listens; exits when its stdin
// closes (the benchmark ended, however it ended) or on SIGTERM.
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type net from 'node:net';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';

export const MODES = ['stateless-json', 'stateless-sse', 'session-json', 'session-sse'] as const;
export type Mode = (typeof MODES)[number];

function build(): McpServer {
  const mcp = new McpServer({ name: 'bench-upstream', version: '1.0.0' });
  mcp.registerTool(
    'echo',
    { description: 'Echoes the text back.', inputSchema: { text: z.string() }, annotations: { readOnlyHint: true } },
    ({ text }) => ({ content: [{ type: 'text', text }] }),
  );
  return mcp;
}

async function readJson(req: http.IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  return text === '' ? undefined : JSON.parse(text);
}

function handlerFor(mode: Mode): (req: http.IncomingMessage, res: http.ServerResponse) => Promise<void> {
  const json = mode.endsWith('-json');
  if (mode.startsWith('stateless')) {
    return async (req, res) => {
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: json });
      const server = build();
      res.on('close', () => {
        void transport.close();
        void server.close();
      });
      await server.connect(transport);
      await transport.handleRequest(req, res, await readJson(req));
    };
  }
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  return async (req, res) => {
    const sid = req.headers['mcp-session-id'];
    let transport = typeof sid === 'string' ? sessions.get(sid) : undefined;
    if (typeof sid === 'string' && !transport) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null }));
      return;
    }
    if (!transport) {
      const created: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        enableJsonResponse: json,
        onsessioninitialized: (id) => {
          sessions.set(id, created);
        },
        onsessionclosed: (id) => {
          sessions.delete(id);
        },
      });
      await build().connect(created);
      transport = created;
    }
    await transport.handleRequest(req, res, await readJson(req));
  };
}

async function serve(mode: Mode): Promise<number> {
  const handle = handlerFor(mode);
  const server = http.createServer({ keepAliveTimeout: 60_000 }, (req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
      res.end(String(err));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as net.AddressInfo).port;
}

async function main(): Promise<void> {
  const ports: Record<string, number> = {};
  for (const mode of MODES) ports[mode] = await serve(mode);
  process.stdout.write(JSON.stringify(ports) + '\n');
  process.stdin.on('end', () => process.exit(0));
  process.stdin.resume();
  process.on('SIGTERM', () => process.exit(0));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) void main();

/** Runs this module as its own process; the ports of its servers by mode, and how to stop it. */
export async function spawnUpstream(): Promise<{ ports: Record<Mode, number>; stop(): Promise<void> }> {
  const child = spawn(process.execPath, [fileURLToPath(import.meta.url)], { stdio: ['pipe', 'pipe', 'inherit'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const line = await new Promise<string>((resolve, reject) => {
    readline.createInterface({ input: child.stdout! }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`upstream exited (${code})`)));
  });
  return {
    ports: JSON.parse(line),
    stop: async () => {
      child.stdin!.end();
      await exited;
    },
  };
}
