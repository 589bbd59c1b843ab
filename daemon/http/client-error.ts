// Requests Node's HTTP parser refuses before any handler sees them (raw non-ASCII bytes in the
// request line, malformed headers, headers too large, a request that took too long) get the error
// object like every other refusal, written straight to the socket, and the connection is closed.
// So do the two Node would otherwise answer on its own: an Expect other than 100-continue (a bare
// 417) and CONNECT (the socket closed without a word).
import { randomUUID } from 'node:crypto';
import type http from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { ERRORS, type ErrorBody, type ErrorCode } from '../../shared/errors.js';
import type { Logger } from '../log.js';
import { sendJson } from './respond.js';

const REASONS: Record<number, string> = {
  400: 'Bad Request',
  405: 'Method Not Allowed',
  408: 'Request Timeout',
  413: 'Content Too Large',
  431: 'Request Header Fields Too Large',
};

/** Node's parser error codes (llhttp HPE_*, ERR_HTTP_REQUEST_TIMEOUT) to ours; any other is malformed_request. */
export function clientErrorCode(nodeCode: string | undefined): ErrorCode {
  switch (nodeCode) {
    case 'HPE_HEADER_OVERFLOW':
      return 'headers_too_large';
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return 'payload_too_large';
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return 'request_timeout';
    default:
      return 'malformed_request';
  }
}

/** The whole HTTP/1.1 answer, as bytes to write to the socket (`extra`: one more header line). */
export function clientErrorResponse(code: ErrorCode, requestId: string, extra?: string): string {
  const { status, message } = ERRORS[code];
  const body: ErrorBody = { error: { code, message, request_id: requestId } };
  const text = JSON.stringify(body);
  return [
    `HTTP/1.1 ${status} ${REASONS[status] ?? 'Error'}`,
    'Content-Type: application/json; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(text)}`,
    `X-Request-Id: ${requestId}`,
    ...(extra ? [extra] : []),
    'Connection: close',
    '',
    text,
  ].join('\r\n');
}

export function answerClientErrors(server: http.Server, log: Logger): void {
  // The last request on each socket: a parser error in its body is its own answer (or none, when it
  // has one already); an error in a later, pipelined request waits until that answer is written.
  const current = new WeakMap<Socket, { req: http.IncomingMessage; res: http.ServerResponse }>();
  server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
    current.set(req.socket, { req, res });
  });
  const refused = (err: NodeJS.ErrnoException, requestId: string): ErrorCode => {
    const code = clientErrorCode(err.code);
    // Never the raw packet: it may hold a credential.
    log.info({ reqId: requestId, parserError: err.code, status: ERRORS[code].status }, 'request refused by the HTTP parser');
    return code;
  };
  const answer = (err: NodeJS.ErrnoException, socket: Duplex): void => {
    if (err.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    const requestId = randomUUID();
    socket.end(clientErrorResponse(refused(err, requestId), requestId), () => socket.destroy());
  };
  server.on('checkExpectation', (req: http.IncomingMessage, res: http.ServerResponse) => {
    const requestId = randomUUID();
    log.info({ reqId: requestId, status: 417 }, 'request refused: unsupported Expect');
    const body: ErrorBody = { error: { code: 'expectation_failed', message: ERRORS.expectation_failed.message, request_id: requestId } };
    req.resume();
    sendJson(res, 417, body, { Connection: 'close', 'X-Request-Id': requestId });
  });
  server.on('connect', (_req: http.IncomingMessage, socket: Duplex) => {
    const requestId = randomUUID();
    log.info({ reqId: requestId, status: 405 }, 'request refused: CONNECT');
    socket.on('error', () => undefined);
    socket.end(clientErrorResponse('method_not_allowed', requestId, 'Allow: GET, POST, PATCH, PUT, DELETE'), () => socket.destroy());
  });
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => {
    const last = current.get(socket as Socket);
    if (last && !last.req.complete) {
      const { res } = last;
      if (res.headersSent || err.code === 'ECONNRESET' || !socket.writable) {
        if (res.writableFinished) socket.destroy();
        else res.once('close', () => socket.destroy());
        return;
      }
      const requestId = String(res.getHeader('x-request-id') ?? randomUUID());
      const code = refused(err, requestId);
      const body: ErrorBody = { error: { code, message: ERRORS[code].message, request_id: requestId } };
      sendJson(res, ERRORS[code].status, body, { Connection: 'close', 'X-Request-Id': requestId });
      return;
    }
    if (last && !last.res.writableFinished) last.res.once('close', () => answer(err, socket));
    else answer(err, socket);
  });
}
