// Real MCP servers on 127.0.0.1 port 0 for the MCP tests (client, registry, proxy): the 2025-era
// SDK (@modelcontextprotocol/sdk 1.x, stateful or stateless, JSON or SSE answers), the 2026-07-28
// SDK (@modelcontextprotocol/server 2.x, createMcpHandler), server-everything as a child process,
// and a scripted server that misbehaves on purpose. Each registers its own teardown; each records
// the requests it saw, so a test can assert what was (not) sent.
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { createRequire } from 'node:module';
import { freeLoopbackPort } from './ports.js';
import path from 'node:path';
import type { Test } from 'tap';
import { z } from 'zod';
import { McpServer as LegacyMcpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import {
  StreamableHTTPServerTransport,
  type StreamableHTTPServerTransportOptions,
} from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import {
  McpServer as ModernMcpServer,
  Server as ModernServer,
  createMcpHandler,
  fromJsonSchema,
  inputRequired,
} from '@modelcontextprotocol/server';
import { listenOnLoopback } from './ports.js';

export interface ToolDef {
  name: string;
  title?: string;
  description?: string;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  annotations?: Record<string, unknown>;
}

/** What the server demands before it answers: a bearer token or one named header. */
export type AuthCheck = { bearer: string } | { header: { name: string; value: string } };

export interface SeenRequest {
  readonly httpMethod: string;
  /** The JSON-RPC method of a POST body, when it had one. */
  readonly rpcMethod: string | undefined;
  readonly body: unknown;
  readonly headers: http.IncomingHttpHeaders;
}

export interface RunningServer {
  /** The MCP endpoint. */
  readonly url: string;
  readonly port: number;
  /** Requests in arrival order (empty for server-everything, which runs in another process). */
  readonly seen: SeenRequest[];
  /** TCP connections accepted so far. */
  connections(): number;
}

/** Three tools with every surface field in use, a $ref schema among them. */
export const SAMPLE_TOOLS: readonly ToolDef[] = [
  {
    name: 'get_weather',
    title: 'Weather',
    description: 'Current weather for a city.',
    inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    outputSchema: { type: 'object', properties: { celsius: { type: 'number' } } },
    annotations: { readOnlyHint: true, openWorldHint: true },
  },
  {
    name: 'delete_file',
    description: 'Deletes a file.',
    inputSchema: { type: 'object', properties: { path: { $ref: '#/$defs/path' } }, $defs: { path: { type: 'string', minLength: 1 } } },
    annotations: { destructiveHint: true },
  },
  { name: 'ping', inputSchema: { type: 'object' } },
];

/** `count` plain tools named tool_00, tool_01, ... */
export function manyTools(count: number): ToolDef[] {
  return Array.from({ length: count }, (_, i) => ({
    name: `tool_${String(i).padStart(2, '0')}`,
    description: `Tool number ${i}.`,
    inputSchema: { type: 'object', properties: { n: { type: 'integer' } } },
  }));
}

export type Handler = (req: http.IncomingMessage, res: http.ServerResponse, body: Buffer) => Promise<void> | void;

async function readBody(req: http.IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

function parseJson(body: Buffer): unknown {
  try {
    return body.length === 0 ? undefined : JSON.parse(body.toString('utf8'));
  } catch {
    return undefined;
  }
}

function rpcMethodOf(message: unknown): string | undefined {
  return typeof message === 'object' && message !== null && typeof (message as { method?: unknown }).method === 'string'
    ? (message as { method: string }).method
    : undefined;
}

/** An HTTP server on 127.0.0.1:0 that records every request, torn down with the test. */
export async function listen(t: Test, handler: Handler): Promise<RunningServer> {
  const seen: SeenRequest[] = [];
  let connections = 0;
  const server = http.createServer((req, res) => {
    void (async () => {
      const body = await readBody(req);
      const message = parseJson(body);
      seen.push({ httpMethod: req.method ?? '', rpcMethod: rpcMethodOf(message), body: message, headers: req.headers });
      await handler(req, res, body);
    })().catch((err: unknown) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
      res.end(String(err));
    });
  });
  server.on('connection', () => {
    connections += 1;
  });
  const port = await listenOnLoopback(t, server);
  return { url: `http://127.0.0.1:${port}/mcp`, port, seen, connections: () => connections };
}

/**
 * The 2025-era SDK's session routing: a request with an mcp-session-id goes to that session's
 * StreamableHTTPServerTransport (404 "Session not found" when unknown, unless stateless), any other
 * request to a new transport connected to a fresh `build()` server (with `resumable`'s event store and
 * retry interval, when given). Every transport closes at teardown.
 */
export function sessionRouter(
  t: Test,
  build: () => { connect(transport: StreamableHTTPServerTransport): Promise<void> },
  options: {
    response?: 'json' | 'sse';
    stateless?: boolean;
    resumable?: Pick<StreamableHTTPServerTransportOptions, 'eventStore' | 'retryInterval'>;
  } = {},
): Handler {
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const open = new Set<StreamableHTTPServerTransport>();
  t.teardown(async () => {
    await Promise.all([...open].map((tr) => tr.close()));
  });
  return async (req, res, body) => {
    const sid = req.headers['mcp-session-id'];
    let transport = typeof sid === 'string' ? sessions.get(sid) : undefined;
    if (typeof sid === 'string' && !transport && !options.stateless) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null }));
      return;
    }
    if (!transport) {
      const created: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
        sessionIdGenerator: options.stateless ? undefined : () => randomUUID(),
        enableJsonResponse: options.response === 'json',
        ...options.resumable,
        onsessioninitialized: (id) => {
          sessions.set(id, created);
        },
        onsessionclosed: (id) => {
          sessions.delete(id);
        },
      });
      open.add(created);
      await build().connect(created);
      transport = created;
    }
    await transport.handleRequest(req, res, parseJson(body));
  };
}

/** True when the request carries what `check` demands; answers 401 itself otherwise. */
function signedIn(check: AuthCheck | undefined, req: http.IncomingMessage, res: http.ServerResponse): boolean {
  if (check === undefined) return true;
  const ok =
    'bearer' in check
      ? req.headers.authorization === `Bearer ${check.bearer}`
      : req.headers[check.header.name.toLowerCase()] === check.header.value;
  if (!ok) {
    res.writeHead(401, { 'content-type': 'application/json', 'www-authenticate': 'Bearer' });
    res.end(JSON.stringify({ error: 'invalid_token' }));
  }
  return ok;
}

function pageOf(tools: readonly ToolDef[], cursor: unknown, pageSize: number): { tools: ToolDef[]; nextCursor?: string } {
  const start = typeof cursor === 'string' ? Number(cursor.replace(/^page-/, '')) : 0;
  const page = tools.slice(start, start + pageSize);
  return start + pageSize < tools.length ? { tools: page, nextCursor: `page-${start + pageSize}` } : { tools: page };
}

const echoResult = (args: unknown) => ({ content: [{ type: 'text' as const, text: JSON.stringify(args ?? {}) }] });

export interface LegacyServerOptions {
  /** Raw tool definitions served by a tools/list handler (paged by pageSize); default: one zod `echo` tool. */
  tools?: readonly ToolDef[];
  pageSize?: number;
  /** `json`: enableJsonResponse; `sse` (default): the SDK answers every request as an event stream. */
  response?: 'json' | 'sse';
  /** No session ids (sessionIdGenerator undefined), a fresh transport per request. */
  stateless?: boolean;
  auth?: AuthCheck;
}

/** A 2025-era server: @modelcontextprotocol/sdk 1.x McpServer + StreamableHTTPServerTransport. */
export async function startLegacyMcpServer(t: Test, options: LegacyServerOptions = {}): Promise<RunningServer> {
  const build = (): LegacyMcpServer => {
    const mcp = new LegacyMcpServer({ name: 'legacy-sdk', version: '1.32.2' });
    const tools = options.tools;
    if (tools) {
      mcp.server.registerCapabilities({ tools: {} });
      mcp.server.setRequestHandler(ListToolsRequestSchema, (req) => pageOf(tools, req.params?.cursor, options.pageSize ?? 1000));
      mcp.server.setRequestHandler(CallToolRequestSchema, (req) => echoResult(req.params.arguments));
    } else {
      mcp.registerTool(
        'echo',
        { title: 'Echo', description: 'Echoes the text back.', inputSchema: { text: z.string() }, annotations: { readOnlyHint: true } },
        ({ text }) => ({ content: [{ type: 'text', text }] }),
      );
    }
    return mcp;
  };
  const route = sessionRouter(t, build, options);
  return listen(t, async (req, res, body) => {
    if (!signedIn(options.auth, req, res)) return;
    await route(req, res, body);
  });
}

export interface ModernServerOptions {
  tools?: readonly ToolDef[];
  /** Page tools/list through a low-level Server handler instead of McpServer.registerTool. */
  pageSize?: number;
  /** createMcpHandler's responseMode for 2026-07-28 exchanges (default `json`). */
  response?: 'json' | 'sse' | 'auto';
  /** `stateless` (default): 2025 traffic served by the stateless fallback; `reject`: modern only. */
  legacy?: 'stateless' | 'reject';
  auth?: AuthCheck;
  /**
   * Two more tools: `progress` notifies progress 1..3 (of 3) before it answers, when the call has a
   * progressToken (streamed only when the response mode allows SSE); `ask` answers input_required
   * with one elicitation (key `confirm`) and, called again with its response, returns that response.
   */
  interactive?: boolean;
}

/** The `progress` and `ask` tools of ModernServerOptions.interactive. */
function registerInteractiveTools(mcp: ModernMcpServer): void {
  const empty = fromJsonSchema({ type: 'object' } as never);
  mcp.registerTool('progress', { description: 'Counts to three.', inputSchema: empty }, async (_args: unknown, ctx) => {
    const token = ctx.mcpReq._meta?.progressToken;
    if (token !== undefined) {
      for (let i = 1; i <= 3; i += 1)
        await ctx.mcpReq.notify({ method: 'notifications/progress', params: { progressToken: token, progress: i, total: 3 } });
    }
    return { content: [{ type: 'text', text: 'counted' }] };
  });
  mcp.registerTool('ask', { description: 'Asks the user.', inputSchema: empty }, (_args: unknown, ctx) => {
    const answer = ctx.mcpReq.inputResponses?.confirm;
    if (answer !== undefined) return { content: [{ type: 'text', text: JSON.stringify(answer) }] };
    return inputRequired({
      inputRequests: {
        confirm: inputRequired.elicit({
          message: 'Proceed?',
          requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } } },
        }),
      },
    });
  });
}

function modernFactory(options: ModernServerOptions): () => ModernMcpServer | ModernServer {
  const tools = options.tools ?? SAMPLE_TOOLS;
  const pageSize = options.pageSize;
  if (pageSize !== undefined) {
    return () => {
      const server = new ModernServer({ name: 'modern-sdk', version: '2.4.0' }, { capabilities: { tools: {} } });
      server.setRequestHandler('tools/list', (req) => pageOf(tools, req.params?.cursor, pageSize) as never);
      server.setRequestHandler('tools/call', (req) => echoResult(req.params.arguments));
      return server;
    };
  }
  return () => {
    const mcp = new ModernMcpServer({ name: 'modern-sdk', version: '2.4.0' });
    for (const tool of tools) {
      mcp.registerTool(
        tool.name,
        {
          ...(tool.title !== undefined ? { title: tool.title } : {}),
          ...(tool.description !== undefined ? { description: tool.description } : {}),
          inputSchema: fromJsonSchema(tool.inputSchema as never),
          ...(tool.outputSchema !== undefined ? { outputSchema: fromJsonSchema(tool.outputSchema as never) } : {}),
          ...(tool.annotations !== undefined ? { annotations: tool.annotations } : {}),
        },
        (args: unknown) => ({ ...echoResult(args), ...(tool.outputSchema !== undefined ? { structuredContent: {} } : {}) }),
      );
    }
    if (options.interactive) registerInteractiveTools(mcp);
    return mcp;
  };
}

function toWebRequest(req: http.IncomingMessage, res: http.ServerResponse, body: Buffer, origin: string): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    for (const v of Array.isArray(value) ? value : value === undefined ? [] : [value]) headers.append(name, v);
  }
  const gone = new AbortController();
  res.on('close', () => gone.abort());
  const method = req.method ?? 'GET';
  return new Request(`${origin}${req.url ?? '/'}`, {
    method,
    headers,
    body: method === 'POST' ? new Uint8Array(body) : undefined,
    signal: gone.signal,
  });
}

async function sendWebResponse(res: http.ServerResponse, response: Response): Promise<void> {
  res.writeHead(response.status, Object.fromEntries(response.headers));
  if (response.body) {
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) res.write(chunk);
  }
  res.end();
}

/** A 2026-07-28 server: @modelcontextprotocol/server 2.x behind createMcpHandler (stateless). */
export async function startModernMcpServer(t: Test, options: ModernServerOptions = {}): Promise<RunningServer> {
  const handler = createMcpHandler(modernFactory(options), {
    legacy: options.legacy ?? 'stateless',
    responseMode: options.response ?? 'json',
    onerror: () => undefined,
  });
  t.teardown(() => handler.close());
  let origin = '';
  const running = await listen(t, async (req, res, body) => {
    if (!signedIn(options.auth, req, res)) return;
    await sendWebResponse(res, await handler.fetch(toWebRequest(req, res, body, origin)));
  });
  origin = `http://127.0.0.1:${running.port}`;
  return running;
}

/**
 * @modelcontextprotocol/server-everything in streamable HTTP mode (`dist/index.js streamableHttp`,
 * port from PORT), as a child process. It listens on every interface; the test talks to 127.0.0.1.
 */
export async function startEverythingServer(t: Test): Promise<RunningServer> {
  const require = createRequire(import.meta.url);
  const bin = path.join(path.dirname(require.resolve('@modelcontextprotocol/server-everything/package.json')), 'dist', 'index.js');
  const port = await freeLoopbackPort();
  const child = spawn(process.execPath, [bin, 'streamableHttp'], {
    env: { ...process.env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  t.teardown(
    () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) {
          resolve();
          return;
        }
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  );
  child.stdout.resume();
  await new Promise<void>((resolve, reject) => {
    let log = '';
    const timer = setTimeout(() => reject(new Error(`server-everything did not start: ${log}`)), 60_000);
    child.stderr.on('data', (chunk: Buffer) => {
      log += chunk.toString('utf8');
      if (/listening on port/.test(log)) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server-everything exited (${String(code)}): ${log}`));
    });
  });
  return { url: `http://127.0.0.1:${port}/mcp`, port, seen: [], connections: () => 0 };
}

export type Misbehaviour =
  | 'stall' // never sends response headers
  | 'stall-body' // headers and half a JSON answer, then nothing
  | 'endless-sse' // one SSE event whose data line never ends
  | 'trickle-sse' // a notification every 20 ms, never the response
  | 'endless-json' // a JSON answer that never ends
  | 'garbage' // 200 application/json that is not JSON
  | 'html' // 200 text/html
  | 'status-500'
  | 'rpc-error' // 200 with a JSON-RPC error
  | 'redirect' // 307 to `redirectTo`
  | 'version-2024' // initialize answers protocolVersion 2024-11-05
  | 'version-echo'; // initialize echoes 2026-07-28, as a confused 2025 server does

export interface ScriptedServerOptions {
  misbehave: Misbehaviour;
  /** The JSON-RPC method that triggers it (`tools/list` by default; `*` for the very first request). */
  on?: string;
  redirectTo?: string;
}

function answer(res: http.ServerResponse, id: unknown, result: object): void {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ jsonrpc: '2.0', id, result }));
}

function misbehave(res: http.ServerResponse, id: unknown, options: ScriptedServerOptions): void {
  switch (options.misbehave) {
    case 'stall':
      return;
    case 'stall-body':
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"jsonrpc":"2.0",');
      return;
    case 'endless-sse': {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: ');
      const timer = setInterval(() => res.write('x'.repeat(16 * 1024)), 1);
      res.on('close', () => clearInterval(timer));
      return;
    }
    case 'trickle-sse': {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const note = `data: ${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'working' } })}\n\n`;
      const timer = setInterval(() => res.write(note), 20);
      res.on('close', () => clearInterval(timer));
      return;
    }
    case 'endless-json': {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write(`{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":{"tools":[`);
      const timer = setInterval(() => res.write('{"name":"x","inputSchema":{}},'.repeat(512)), 1);
      res.on('close', () => clearInterval(timer));
      return;
    }
    case 'garbage':
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"jsonrpc": "2.0", oops');
      return;
    case 'html':
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<html>hello</html>');
      return;
    case 'status-500':
      res.writeHead(500, { 'content-type': 'text/plain' });
      res.end('boom');
      return;
    case 'rpc-error':
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ jsonrpc: '2.0', id, error: { code: -32603, message: 'internal failure' } }));
      return;
    case 'redirect':
      res.writeHead(307, { location: options.redirectTo ?? 'http://127.0.0.1:1/mcp' });
      res.end();
      return;
    case 'version-2024':
    case 'version-echo':
      answer(res, id, {
        protocolVersion: options.misbehave === 'version-2024' ? '2024-11-05' : '2026-07-28',
        capabilities: {},
        serverInfo: { name: 'scripted', version: '0' },
      });
      return;
  }
}

/**
 * A hand-written 2025-era server (no session) that follows the protocol until the request named
 * in `on` arrives, and then misbehaves as told.
 */
export async function startScriptedServer(t: Test, options: ScriptedServerOptions): Promise<RunningServer> {
  const trigger = options.on ?? 'tools/list';
  let first = true;
  return listen(t, (_req, res, body) => {
    const message = parseJson(body) as { id?: unknown; method?: unknown } | undefined;
    const method = rpcMethodOf(message);
    const id = message?.id;
    const isFirst = first;
    first = false;
    if (trigger === '*' ? isFirst : method === trigger) {
      misbehave(res, id, options);
      return;
    }
    if (method === 'server/discover') {
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message: 'Bad Request: Server not initialized' }, id: null }));
    } else if (method === 'initialize') {
      answer(res, id, { protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'scripted', version: '0' } });
    } else if (method === 'tools/list') {
      answer(res, id, { tools: SAMPLE_TOOLS });
    } else {
      res.writeHead(202);
      res.end();
    }
  });
}
