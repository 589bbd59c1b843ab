import t from 'tap';
import { McpClientError, scanOutcomeOf, toClientError, type McpFailureKind } from '../../../daemon/mcp/client/errors.js';
import { UpstreamForbiddenError } from '../../../daemon/mcp/client/ssrf-guard.js';

const live = new AbortController().signal;
const coded = (code: string, message = 'whatever the text says') => Object.assign(new Error(message), { code });

t.test('transport failures map by code, never by message', async (t) => {
  const cases: Array<[string, McpFailureKind]> = [
    ['UND_ERR_CONNECT_TIMEOUT', 'timeout'],
    ['UND_ERR_HEADERS_TIMEOUT', 'timeout'],
    ['UND_ERR_BODY_TIMEOUT', 'timeout'],
    ['ETIMEDOUT', 'timeout'],
    ['ECONNREFUSED', 'unreachable'],
    ['ECONNRESET', 'unreachable'],
    ['ENOTFOUND', 'unreachable'],
    ['EAI_AGAIN', 'unreachable'],
    ['UND_ERR_SOCKET', 'unreachable'],
    ['CERT_HAS_EXPIRED', 'unreachable'],
    ['ERR_TLS_CERT_ALTNAME_INVALID', 'unreachable'],
  ];
  for (const [code, kind] of cases) t.match(toClientError(coded(code, 'timeout forbidden 401'), live), { kind, code }, code);
  t.match(
    toClientError(Object.assign(new Error('socket hang up'), { cause: coded('ECONNRESET') }), live),
    { kind: 'unreachable' },
    'a code on the cause counts',
  );
});

t.test('the guard refusal is found wherever undici put it', async (t) => {
  const refusal = new UpstreamForbiddenError('address', 'upstream address 10.0.0.1 is private', '10.0.0.1', 'private');
  t.match(toClientError(refusal, live), { kind: 'forbidden_address', code: 'upstream_url_forbidden', message: /10\.0\.0\.1/ });
  t.match(toClientError(Object.assign(new Error('wrapped'), { code: 'UND_ERR_SOCKET', cause: refusal }), live), {
    kind: 'forbidden_address',
  });
});

t.test('a fired signal decides: our time limit is timeout, the caller is aborted', async (t) => {
  t.match(toClientError(coded('UND_ERR_ABORTED'), AbortSignal.abort(new DOMException('late', 'TimeoutError'))), { kind: 'timeout' });
  t.match(toClientError(coded('UND_ERR_ABORTED'), AbortSignal.abort()), { kind: 'aborted' });
});

t.test('errors that are bugs of ours are rethrown, not disguised as upstream faults', async (t) => {
  const bug = new TypeError('x is not a function');
  t.throws(() => toClientError(bug, live), TypeError);
  t.throws(() => toClientError(coded('UND_ERR_INVALID_ARG'), live), { code: 'UND_ERR_INVALID_ARG' });
  const typed = new McpClientError('rpc_error', 'already typed');
  t.equal(toClientError(typed, live), typed);
});

t.test('every kind reads as one outcome of the spec scan tables', async (t) => {
  t.same(
    (
      [
        'unreachable',
        'timeout',
        'invalid_response',
        'too_large',
        'http_error',
        'auth_failed',
        'rpc_error',
        'forbidden_address',
        'auth_unsupported',
        'auth_token_missing',
        'aborted',
      ] as const
    ).map((kind) => scanOutcomeOf(kind)?.reason ?? null),
    [
      'unreachable',
      'unreachable',
      'invalid_response',
      'invalid_response',
      'bad_status',
      'bad_status',
      'rpc_error',
      'upstream_url_forbidden',
      'auth_method_unsupported',
      'auth_token_missing',
      null,
    ],
  );
});
