// Upstream MCP servers on 127.0.0.1 that are slow or hostile on purpose, for the proxy's time and
// size limits: a hand-written 2025-era server (no session) whose tools/list and tools/call answers
// can be switched at any time (trickled bytes, endless keep-alive comments, silence, SSE fields,
// answers of any size), and an SDK server whose one tool stays silent before it answers.
import type http from 'node:http';
import type { Test } from 'tap';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { listen, SAMPLE_TOOLS, sessionRouter, type RunningServer, type ToolDef } from './mcp-servers.js';

export type HugeForm =
  | 'json-declared' // one JSON answer with its Content-Length
  | 'json-chunked' // one JSON answer, chunked, no length
  | 'sse-event' // one SSE event holding the whole answer
  | 'sse-events'; // 1 MiB notifications, then the answer: each event small, the stream huge

export type Answer =
  | { readonly kind: 'normal' }
  /** SSE headers, then one byte every 300 ms: never a complete line, let alone an event. */
  | { readonly kind: 'trickle-sse' }
  /** SSE headers, then a keep-alive comment every 200 ms, forever; never the answer. */
  | { readonly kind: 'comments-sse' }
  /** The answer as SSE: a priming event (id, retry, empty data), a notification and the response, each with an id. */
  | { readonly kind: 'sse-fields' }
  /** A JSON answer declaring `bytes` in its Content-Length, then never a byte of its body. */
  | { readonly kind: 'declared-then-stall'; readonly bytes: number }
  /** `bytes` of answer in the given form, written as fast as the reader takes them. */
  | { readonly kind: 'huge'; readonly bytes: number; readonly form: HugeForm };

export interface HostileUpstream extends RunningServer {
  /** How `method` is answered from now on. */
  set(method: 'tools/list' | 'tools/call', answer: Answer): void;
  /** Answers the server had begun and could not finish: the reader went away. */
  aborted(): number;
  /** Bytes written into answers so far. */
  written(): number;
}

/** The SSE fields the `sse-fields` answer carries, for assertions. */
export const SSE_FIELDS = { primingId: 'prime-1', retry: '2500', noteId: 'note-1', responseId: 'resp-1' } as const;

const MiB = 1024 * 1024;

function rpc(id: unknown, result: object): string {
  return JSON.stringify({ jsonrpc: '2.0', id, result });
}

function listResult(tools: readonly ToolDef[]): object {
  return { tools };
}

/** Writes `total` bytes made of `head`, filler and `tail`, honouring backpressure, until done or the reader leaves. */
async function pump(
  res: http.ServerResponse,
  head: string,
  total: number,
  tail: string,
  filler: Buffer,
  count: (n: number) => void,
): Promise<void> {
  const write = async (chunk: Buffer | string): Promise<boolean> => {
    if (res.destroyed) return false;
    count(Buffer.byteLength(chunk));
    if (!res.write(chunk))
      await new Promise<void>((resolve) => {
        res.once('drain', resolve);
        res.once('close', resolve);
      });
    return !res.destroyed;
  };
  let left = total - Buffer.byteLength(head) - Buffer.byteLength(tail);
  if (!(await write(head))) return;
  while (left > 0) {
    const piece = left >= filler.length ? filler : filler.subarray(0, left);
    left -= piece.length;
    if (!(await write(piece))) return;
  }
  if (await write(tail)) res.end();
}

function huge(res: http.ServerResponse, id: unknown, bytes: number, form: HugeForm, count: (n: number) => void): void {
  const filler = Buffer.alloc(MiB, 'x');
  const head = `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":{"content":[{"type":"text","text":"`;
  const tail = '"}]}}';
  if (form === 'json-declared' || form === 'json-chunked') {
    res.writeHead(200, { 'content-type': 'application/json', ...(form === 'json-declared' ? { 'content-length': String(bytes) } : {}) });
    void pump(res, head, bytes, tail, filler, count);
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  if (form === 'sse-event') {
    void pump(res, `data: ${head}`, bytes, `${tail}\n\n`, filler, count);
    return;
  }
  const note = Buffer.from(
    `data: {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"${'x'.repeat(MiB - 100)}"}}\n\n`,
  );
  const last = `data: ${rpc(id, { content: [{ type: 'text', text: 'done' }] })}\n\n`;
  void pump(res, '', Math.floor(bytes / note.length) * note.length + last.length, last, note, count); // whole notifications only
}

function sseFields(res: http.ServerResponse, id: unknown, tools: readonly ToolDef[]): void {
  const response = rpc(id, listResult(tools));
  const cut = response.indexOf('"result"');
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  res.end(
    [
      `id: ${SSE_FIELDS.primingId}\nretry: ${SSE_FIELDS.retry}\ndata: \n\n`,
      `id: ${SSE_FIELDS.noteId}\nevent: message\ndata: {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"listing"}}\n\n`,
      ': a comment between events\n\n',
      // The response's JSON over two data lines: joined with LF it is the same JSON.
      `id: ${SSE_FIELDS.responseId}\ndata: ${response.slice(0, cut)}\ndata: ${response.slice(cut)}\n\n`,
    ].join(''),
  );
}

function every(res: http.ServerResponse, ms: number, chunk: () => string): void {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  res.flushHeaders();
  const timer = setInterval(() => res.write(chunk()), ms);
  res.on('close', () => clearInterval(timer));
}

/** The hand-written server: protocol as a 2025-06-18 server without sessions, answers as set. */
export async function startHostileUpstream(t: Test, tools: readonly ToolDef[] = SAMPLE_TOOLS): Promise<HostileUpstream> {
  const answers: Record<'tools/list' | 'tools/call', Answer> = { 'tools/list': { kind: 'normal' }, 'tools/call': { kind: 'normal' } };
  let aborted = 0;
  let written = 0;
  const count = (n: number) => {
    written += n;
  };
  const running = await listen(t, (_req, res, body) => {
    const message = JSON.parse(body.toString('utf8') || 'null') as {
      id?: unknown;
      method?: string;
      params?: { arguments?: unknown };
    } | null;
    const id = message?.id;
    res.on('close', () => {
      if (res.headersSent && !res.writableFinished) aborted += 1;
    });
    switch (message?.method) {
      case 'server/discover':
        res.writeHead(400, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message: 'Bad Request: Server not initialized' }, id: null }));
        return;
      case 'initialize':
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(rpc(id, { protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'hostile', version: '0' } }));
        return;
      case 'tools/list':
      case 'tools/call': {
        const answer = answers[message.method];
        if (answer.kind === 'trickle-sse') return every(res, 300, () => 'd');
        if (answer.kind === 'comments-sse') return every(res, 200, () => ': keep-alive\n');
        if (answer.kind === 'sse-fields') return sseFields(res, id, tools);
        if (answer.kind === 'huge') return huge(res, id, answer.bytes, answer.form, count);
        if (answer.kind === 'declared-then-stall') {
          res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(answer.bytes) });
          res.flushHeaders();
          return;
        }
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          rpc(
            id,
            message.method === 'tools/list'
              ? listResult(tools)
              : { content: [{ type: 'text', text: JSON.stringify(message.params?.arguments ?? {}) }] },
          ),
        );
        return;
      }
      default:
        res.writeHead(202);
        res.end();
    }
  });
  return {
    ...running,
    set: (method, answer) => {
      answers[method] = answer;
    },
    aborted: () => aborted,
    written: () => written,
  };
}

/**
 * A 2025-era SDK server (stateless; SSE answers, or JSON with `response: 'json'`) with SAMPLE_TOOLS
 * plus `silent`, which sends nothing for `silentMs` and then answers: a legitimate long tool.
 */
export async function startSilentToolServer(t: Test, options: { response: 'sse' | 'json'; silentMs: number }): Promise<RunningServer> {
  const tools: ToolDef[] = [
    ...SAMPLE_TOOLS,
    { name: 'silent', description: 'Thinks quietly, then answers.', inputSchema: { type: 'object' } },
  ];
  const build = () => {
    const mcp = new McpServer({ name: 'silent', version: '1.0.0' });
    mcp.server.registerCapabilities({ tools: {} });
    mcp.server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: tools as never }));
    mcp.server.setRequestHandler(CallToolRequestSchema, async (call) => {
      if (call.params.name === 'silent') await new Promise((resolve) => setTimeout(resolve, options.silentMs));
      return { content: [{ type: 'text', text: `${call.params.name} done` }] };
    });
    return mcp;
  };
  return listen(t, sessionRouter(t, build, { stateless: true, response: options.response }));
}
