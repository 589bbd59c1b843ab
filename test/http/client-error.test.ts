// Requests Node's HTTP parser refuses (issue 15, item 6) get the error object like any other
// refusal: a fitting status, Content-Type application/json, Connection: close, then the socket closes.
import http from 'node:http';
import net from 'node:net';
import { Writable } from 'node:stream';
import t, { type Test } from 'tap';
import { answerClientErrors, clientErrorCode } from '../../daemon/http/client-error.js';
import { createLogger } from '../../daemon/log.js';
import { startTestGateway } from '../helpers/gateway.js';
import { listenOnLoopback } from '../helpers/ports.js';
import { parseRaw, rawExchange, type RawAnswer } from '../helpers/raw-http.js';
import { rowCounts } from '../helpers/row-counts.js';

function isErrorAnswer(t: Test, answer: RawAnswer | null, status: number, code: string, what: string): void {
  t.ok(answer, `${what}: an HTTP answer`);
  if (!answer) return;
  t.equal(answer.status, status, `${what}: status`);
  t.match(answer.headers['content-type'], /^application\/json/, `${what}: JSON`);
  t.equal(answer.headers.connection, 'close', `${what}: Connection: close`);
  t.equal(answer.body?.error?.code, code, `${what}: code`);
  t.type(answer.body?.error?.message, 'string', `${what}: message`);
  t.equal(answer.body?.error?.request_id, answer.headers['x-request-id'], `${what}: request id matches the header`);
}

t.test('requests the HTTP parser refuses get the error object, then the connection closes', async (t) => {
  const gw = await startTestGateway(t);
  const port = Number(new URL(gw.url).port);
  const before = await rowCounts(gw.db);
  const cases: [string, Buffer | string, number, string][] = [
    [
      'raw non-ASCII bytes in the request line',
      Buffer.concat([Buffer.from('GET /api/v1/agents/'), Buffer.from([0xc3, 0xa9, 0xff]), Buffer.from(' HTTP/1.1\r\nHost: x\r\n\r\n')]),
      400,
      'malformed_request',
    ],
    ['a space in a header name', 'GET /api/v1/project HTTP/1.1\r\nHost: x\r\nBad Header: y\r\n\r\n', 400, 'malformed_request'],
    ['a NUL in a header value', 'GET /api/v1/project HTTP/1.1\r\nHost: x\r\nX-A: a\0b\r\n\r\n', 400, 'malformed_request'],
    ['a header line without a colon', 'GET /api/v1/project HTTP/1.1\r\nHost: x\r\nnocolon\r\n\r\n', 400, 'malformed_request'],
    ['no method', '/api/v1/project HTTP/1.1\r\n\r\n', 400, 'malformed_request'],
    ['an unknown HTTP version', 'GET /api/v1/project HTTP/9.9\r\nHost: x\r\n\r\n', 400, 'malformed_request'],
    [
      'both Content-Length and chunked',
      'POST /api/v1/verify HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n',
      400,
      'malformed_request',
    ],
    ['a bad chunk size', 'POST /api/v1/verify HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n', 400, 'malformed_request'],
    ['headers too large', `GET /api/v1/project HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`, 431, 'headers_too_large'],
    ['a request line too large', `GET /${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`, 431, 'headers_too_large'],
  ];
  for (const [what, bytes, status, code] of cases) isErrorAnswer(t, parseRaw(await rawExchange(port, bytes)), status, code, what);
  t.same(await rowCounts(gw.db), before, 'nothing written');
  t.notOk(
    gw.logLines.some((l) => /"reqId".*Bearer|ggp_/.test(l) && l.includes('HTTP parser')),
    'no raw packet (or credential) logged',
  );
  t.ok(
    gw.logLines.some((l) => l.includes('request refused by the HTTP parser')),
    'each refusal is logged',
  );
  t.equal((await gw.api('GET', '/healthz')).status, 200, 'the daemon lives on');
});

t.test('a malformed request pipelined after a good one: the good one keeps its answer, then the error object', async (t) => {
  const gw = await startTestGateway(t);
  const port = Number(new URL(gw.url).port);
  const text = await rawExchange(
    port,
    `GET /api/v1/project HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${gw.adminToken}\r\n\r\nGET /x HTTP/1.1\r\nBad Header: 1\r\n\r\n`,
  );
  t.match(text, /^HTTP\/1\.1 200 OK\r\n/, 'the first request is answered first');
  const second = text.indexOf('HTTP/1.1 400');
  t.ok(second > 0, 'then the 400');
  isErrorAnswer(t, parseRaw(text.slice(second)), 400, 'malformed_request', 'the pipelined malformed request');
});

t.test('a connection reset mid-request is not written to, and a timeout is 408', async (t) => {
  const lines: string[] = [];
  const log = createLogger(
    'info',
    new Writable({
      write(c, _e, d) {
        lines.push(String(c));
        d();
      },
    }),
  );
  const server = http.createServer({ headersTimeout: 300, requestTimeout: 300, connectionsCheckingInterval: 50 }, (_req, res) =>
    res.end('ok'),
  );
  answerClientErrors(server, log);
  const port = await listenOnLoopback(t, server);
  isErrorAnswer(
    t,
    parseRaw(await rawExchange(port, 'GET / HTTP/1.1\r\nHost: x\r\nX-Slow: ')),
    408,
    'request_timeout',
    'headers never finished',
  );
  const reset = net.connect(port, '127.0.0.1');
  await new Promise<void>((r) => reset.on('connect', () => r()));
  reset.write('GET / HTTP/1.1\r\nBad Header: 1\r\n\r\n');
  reset.resetAndDestroy();
  await new Promise((r) => setTimeout(r, 200));
  t.match(await rawExchange(port, 'GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'), /^HTTP\/1\.1 200 /, 'the server lives on');
  t.same(
    ['HPE_HEADER_OVERFLOW', 'HPE_CHUNK_EXTENSIONS_OVERFLOW', 'ERR_HTTP_REQUEST_TIMEOUT', 'HPE_INVALID_METHOD', undefined].map(
      clientErrorCode,
    ),
    ['headers_too_large', 'payload_too_large', 'request_timeout', 'malformed_request', 'malformed_request'],
  );
});
