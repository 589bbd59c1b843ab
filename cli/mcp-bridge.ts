// The stdio <-> Streamable HTTP relay behind `gatewayctl bridge`: the official SDK's transports used
// raw (StdioServerTransport toward the host, StreamableHTTPClientTransport toward the gateway's
// proxy), each one's onmessage wired to the other's send. Every JSON-RPC message passes as it is, in
// both directions: requests, answers, notifications, the server's requests on a call's event stream
// and on the GET stream. What the raw transport leaves to a Client is done here: the protocol version
// the initialize answer names goes on every later request (setProtocolVersion), and the session is
// ended (DELETE) when the host closes stdin or the process is told to stop. stdout carries JSON-RPC
// only; everything else goes to `log` (stderr).
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { Readable, Writable } from 'node:stream';

type Id = string | number;

/** How long the session's DELETE may take when the host closes (hosts kill a server after ~2 s more). */
const DELETE_WAIT_MS = 1500;

/** The code of the bridge's own answers: the gateway could not be reached or refused the HTTP request. */
export const BRIDGE_HTTP_ERROR = -32000;

export interface BridgeOptions {
  /** The proxy URL of the server: <gateway>/api/v1/mcp/proxy/<id>. */
  readonly url: URL;
  readonly token: string;
  readonly agentId: string | null;
  readonly userAgent: string;
  readonly log: (line: string) => void;
  readonly stdin?: Readable;
  readonly stdout?: Writable;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isRequest = (m: unknown): m is { id: Id; method: string } =>
  isObject(m) && typeof m.method === 'string' && (typeof m.id === 'string' || typeof m.id === 'number');
const isResponse = (m: unknown): m is { id: Id; result?: unknown; error?: unknown } =>
  isObject(m) && m.method === undefined && (typeof m.id === 'string' || typeof m.id === 'number') && ('result' in m || 'error' in m);
const isRpcAnswer = (m: unknown): boolean =>
  isObject(m) && m.jsonrpc === '2.0' && ('result' in m || (isObject(m.error) && typeof m.error.code === 'number'));

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function errorAnswer(id: Id, message: string, data: Record<string, unknown>): JSONRPCMessage {
  return { jsonrpc: '2.0', id, error: { code: BRIDGE_HTTP_ERROR, message, data } } as JSONRPCMessage;
}

/**
 * fetch for the HTTP transport. The SDK transport throws away the body of a non-2xx answer to a
 * POST; the proxy answers some JSON-RPC errors that way (-32600 for an unknown session under 404,
 * -32602 under 400). Such an answer is handed on as a 200 so the host gets the error unchanged; any
 * other refusal of a request (401, 429, 503: a gateway error body) becomes a JSON-RPC error answer
 * naming the HTTP status and the gateway's words, so the host is never left waiting.
 */
export function relayFetch(base: typeof fetch = fetch): typeof fetch {
  return async (input, init) => {
    const res = await base(input, init);
    if (res.ok || init?.method !== 'POST') return res;
    const text = await res.text();
    const json = { 'content-type': 'application/json' };
    const parsed = parse(text);
    if (isRpcAnswer(parsed)) return new Response(text, { status: 200, headers: json });
    const sent = typeof init.body === 'string' ? parse(init.body) : undefined;
    if (isRequest(sent)) {
      const gateway = isObject(parsed) && isObject(parsed.error) ? parsed.error : {};
      const code = typeof gateway.code === 'string' ? gateway.code : `http_${res.status}`;
      const words = typeof gateway.message === 'string' ? gateway.message : res.statusText || 'no gateway error body';
      const answer = errorAnswer(sent.id, `The gateway answered HTTP ${res.status} (${code}): ${words}`, {
        http_status: res.status,
        code,
        ...(typeof gateway.request_id === 'string' ? { request_id: gateway.request_id } : {}),
      });
      return new Response(JSON.stringify(answer), { status: 200, headers: json });
    }
    return new Response(text, { status: res.status, statusText: res.statusText, headers: res.headers });
  };
}

export interface RunningBridge {
  /** Resolves once both sides are closed (the session ended first, when there was one). */
  readonly closed: Promise<void>;
  close(): Promise<void>;
}

export async function startBridge(o: BridgeOptions): Promise<RunningBridge> {
  const headers: Record<string, string> = { authorization: `Bearer ${o.token}`, 'user-agent': o.userAgent };
  if (o.agentId) headers['x-agent-id'] = o.agentId;
  const http = new StreamableHTTPClientTransport(o.url, { requestInit: { headers }, fetch: relayFetch() });
  const stdin = o.stdin ?? process.stdin;
  const stdio = new StdioServerTransport(stdin, o.stdout ?? process.stdout);
  const initializing = new Set<Id>();
  const toHost = (message: JSONRPCMessage): void => {
    stdio.send(message).catch((err: unknown) => o.log(`bridge: cannot write to stdout: ${String(err)}`));
  };

  stdio.onmessage = (message) => {
    if (isRequest(message) && message.method === 'initialize') initializing.add(message.id);
    http.send(message).catch((err: unknown) => {
      // The transport has reported it (onerror); a request still needs an answer.
      if (isRequest(message)) toHost(errorAnswer(message.id, `The gateway could not be reached: ${(err as Error).message}`, {}));
    });
  };
  http.onmessage = (message) => {
    if (isResponse(message) && initializing.delete(message.id)) {
      const version = isObject(message.result) ? message.result.protocolVersion : undefined;
      if (typeof version === 'string') http.setProtocolVersion(version);
    }
    toHost(message);
  };
  http.onerror = (err) => o.log(`bridge: gateway: ${err.message}`);
  stdio.onerror = (err) => o.log(`bridge: stdin: ${err.message}`);

  let closing: Promise<void> | null = null;
  let done: () => void = () => undefined;
  const closed = new Promise<void>((resolve) => {
    done = resolve;
  });
  const close = (): Promise<void> => {
    closing ??= (async () => {
      if (http.sessionId !== undefined) {
        // Bounded: a host waits a few seconds for its server to exit before it kills it.
        await Promise.race([
          http.terminateSession().catch(() => undefined), // reported through onerror
          new Promise((resolve) => setTimeout(resolve, DELETE_WAIT_MS).unref()),
        ]);
      }
      await http.close();
      await stdio.close();
      done();
    })();
    return closing;
  };

  await http.start();
  await stdio.start();
  stdin.once('end', () => void close());
  stdin.once('close', () => void close());
  return { closed, close };
}
