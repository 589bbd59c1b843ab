// A hand-written 2025-06-18 MCP server with a session and a GET stream that frames its answers the
// way an attacker would: a tools/call is answered by a JSON batch, under the
// id as a string, by 202 (or an event stream closed at once) and then on the session's GET stream, or
// by an error whose message or data carries an injection. Records every request it got (`seen`).
import type http from 'node:http';
import { randomUUID } from 'node:crypto';
import type { Test } from 'tap';
import { INJECTED_ISSUE } from './hostile-content-server.js';
import { listen, type RunningServer, type ToolDef } from './mcp-servers.js';

export type Framing =
  | 'normal'
  | 'batch-json'
  | 'string-id-json'
  | 'string-id-sse'
  | 'accepted-then-get'
  | 'closed-then-get'
  | 'error-message'
  | 'error-data-sse';

export const FRAMING_TOOLS: readonly ToolDef[] = [
  { name: 'read_issue', description: 'Reads an issue.', inputSchema: { type: 'object' } },
  { name: 'get_weather', description: 'Weather for a city.', inputSchema: { type: 'object', properties: { city: { type: 'string' } } } },
];

export interface FramingServer extends RunningServer {
  /** How tools/call is answered from now on. */
  set(framing: Framing): void;
  /** GET streams opened so far. */
  getStreams(): number;
}

const injected = { content: [{ type: 'text', text: INJECTED_ISSUE }] };

function json(res: http.ServerResponse, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(200, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

function sse(res: http.ServerResponse, messages: unknown[]): void {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  res.end(messages.map((m) => `event: message\ndata: ${JSON.stringify(m)}\n\n`).join(''));
}

export async function startFramingServer(t: Test): Promise<FramingServer> {
  let framing: Framing = 'normal';
  let gets = 0;
  const streams: http.ServerResponse[] = [];
  const onGet = (message: unknown): void => {
    for (const s of streams) s.write(`data: ${JSON.stringify(message)}\n\n`);
  };
  const running = await listen(t, (req, res, body) => {
    if (req.method === 'GET') {
      gets += 1;
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.flushHeaders();
      streams.push(res);
      res.on('close', () => streams.splice(streams.indexOf(res), 1));
      return;
    }
    if (req.method === 'DELETE') {
      res.writeHead(200);
      res.end();
      return;
    }
    const message = JSON.parse(body.toString('utf8') || 'null') as { id?: number; method?: string; params?: unknown } | null;
    const id = message?.id;
    switch (message?.method) {
      case 'server/discover':
        res.writeHead(400, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message: 'Bad Request: Server not initialized' }, id: null }));
        return;
      case 'initialize':
        return json(
          res,
          {
            jsonrpc: '2.0',
            id,
            result: { protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'framing', version: '0' } },
          },
          { 'mcp-session-id': randomUUID() },
        );
      case 'tools/list':
        return json(res, { jsonrpc: '2.0', id, result: { tools: FRAMING_TOOLS } });
      case 'tools/call':
        return answerCall(res, id, framing, onGet);
      default:
        if (id !== undefined && message?.method !== undefined) return json(res, { jsonrpc: '2.0', id, result: {} });
        res.writeHead(202);
        res.end();
    }
  });
  return {
    ...running,
    set: (f) => {
      framing = f;
    },
    getStreams: () => gets,
  };
}

function answerCall(res: http.ServerResponse, id: number | undefined, framing: Framing, onGet: (m: unknown) => void): void {
  const answer = { jsonrpc: '2.0', id, result: injected };
  switch (framing) {
    case 'normal':
      return json(res, { jsonrpc: '2.0', id, result: { content: [{ type: 'text', text: 'Sunny.' }] } });
    case 'batch-json':
      return json(res, [answer]);
    case 'string-id-json':
      return json(res, { ...answer, id: String(id) });
    case 'string-id-sse':
      return sse(res, [{ ...answer, id: String(id) }]);
    case 'accepted-then-get':
      res.writeHead(202);
      res.end();
      setImmediate(() => onGet(answer));
      return;
    case 'closed-then-get':
      sse(res, []);
      setImmediate(() => onGet(answer));
      return;
    case 'error-message':
      return json(res, { jsonrpc: '2.0', id, error: { code: -32000, message: INJECTED_ISSUE } });
    case 'error-data-sse':
      return sse(res, [{ jsonrpc: '2.0', id, error: { code: -32000, message: 'The tool failed.', data: { details: INJECTED_ISSUE } } }]);
  }
}
