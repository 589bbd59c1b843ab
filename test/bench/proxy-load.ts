// The proxy benchmark's load generator: raw JSON-RPC tools/call POSTs over undici keep-alive pools,
// with the headers the MCP Streamable HTTP client transport sends. Every answer is checked to be
// the successful result of its own call (JSON or event stream); anything else counts as an error.
import { Pool } from 'undici';

export const PROTOCOL_VERSION = '2025-11-25';

export interface Target {
  readonly origin: string;
  readonly path: string;
  /** Authorization and the like; the MCP headers are added here. */
  readonly headers: Record<string, string>;
  /** Initialize first and send Mcp-Session-Id on every call. */
  readonly session: boolean;
}

export interface Result {
  readonly count: number;
  readonly errors: number;
  readonly firstError: string | null;
  readonly perSecond: number;
  readonly p50: number;
  readonly p99: number;
}

const pools = new Map<string, Pool>();
let nextId = 1;

function poolOf(origin: string): Pool {
  let pool = pools.get(origin);
  if (!pool) {
    pool = new Pool(origin, { connections: 64, pipelining: 1, keepAliveTimeout: 60_000 });
    pools.set(origin, pool);
  }
  return pool;
}

export async function closePools(): Promise<void> {
  await Promise.all([...pools.values()].map((p) => p.close()));
  pools.clear();
}

/** The JSON-RPC message answering `id` in a JSON or event-stream body. */
function answerOf(
  contentType: string,
  text: string,
  id: number,
): { result?: { content?: { text?: string }[] }; error?: unknown } | undefined {
  if (contentType.startsWith('application/json')) return JSON.parse(text);
  if (!contentType.startsWith('text/event-stream')) return undefined;
  for (const event of text.split(/\r?\n\r?\n/)) {
    const data = event
      .split(/\r?\n/)
      .filter((l) => l.startsWith('data:'))
      .map((l) => l.slice(5).trimStart())
      .join('\n');
    if (data === '') continue;
    const message = JSON.parse(data) as { id?: unknown };
    if (message.id === id) return message as never;
  }
  return undefined;
}

async function post(
  target: Target,
  sessionId: string | undefined,
  message: Record<string, unknown>,
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; text: string }> {
  const res = await poolOf(target.origin).request({
    path: target.path,
    method: 'POST',
    body: JSON.stringify(message),
    headers: {
      ...target.headers,
      accept: 'application/json, text/event-stream',
      'content-type': 'application/json',
      'mcp-protocol-version': PROTOCOL_VERSION,
      ...(sessionId ? { 'mcp-session-id': sessionId } : {}),
    },
  });
  return { status: res.statusCode, headers: res.headers, text: await res.body.text() };
}

/** The session id to send, after initialize and notifications/initialized (session targets only). */
export async function openSession(target: Target): Promise<string | undefined> {
  if (!target.session) return undefined;
  const init = await post(target, undefined, {
    jsonrpc: '2.0',
    id: nextId++,
    method: 'initialize',
    params: { protocolVersion: PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'bench', version: '1.0.0' } },
  });
  const sid = init.headers['mcp-session-id'];
  if (init.status !== 200 || typeof sid !== 'string') throw new Error(`initialize: ${init.status} ${init.text.slice(0, 300)}`);
  const note = await post(target, sid, { jsonrpc: '2.0', method: 'notifications/initialized' });
  if (note.status !== 202) throw new Error(`notifications/initialized: ${note.status} ${note.text.slice(0, 300)}`);
  return sid;
}

/** One tools/call of `echo` with `payload` and the call's id; null when it was the successful echo of its own text, else what was wrong. */
export async function callOnce(target: Target, sessionId: string | undefined, payload = ''): Promise<string | null> {
  const id = nextId++;
  const text = `${payload}bench ${id}`;
  try {
    const res = await post(target, sessionId, { jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'echo', arguments: { text } } });
    const answer = res.status === 200 ? answerOf(String(res.headers['content-type'] ?? ''), res.text, id) : undefined;
    return answer?.result?.content?.[0]?.text === text ? null : `HTTP ${res.status}: ${res.text.slice(0, 300)}`;
  } catch (err) {
    return String(err);
  }
}

/** `concurrency` callers in a loop until `count` calls are done or `seconds` have passed. */
export async function load(
  target: Target,
  sessionId: string | undefined,
  concurrency: number,
  limit: { count: number } | { seconds: number },
  payload = '',
): Promise<Result> {
  const latencies: number[] = [];
  let errors = 0;
  let firstError: string | null = null;
  let started = 0;
  const deadline = 'seconds' in limit ? performance.now() + limit.seconds * 1000 : Infinity;
  const more = () => ('count' in limit ? started < limit.count : performance.now() < deadline);
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (more()) {
        started += 1;
        const s = performance.now();
        const error = await callOnce(target, sessionId, payload);
        latencies.push(performance.now() - s);
        if (error !== null) {
          errors += 1;
          firstError ??= error;
        }
      }
    }),
  );
  const elapsed = (performance.now() - t0) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    count: latencies.length,
    errors,
    firstError,
    perSecond: latencies.length / elapsed,
    p50: latencies[Math.floor(latencies.length * 0.5)] ?? NaN,
    p99: latencies[Math.floor(latencies.length * 0.99)] ?? NaN,
  };
}
