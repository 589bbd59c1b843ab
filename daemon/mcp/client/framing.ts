// Every message an upstream sends back on the proxy path, classified in this one place before any of
// it is relayed: a client takes as the answer to its request whatever its id
// comparison lets through (the official SDKs look answers up by Number(id), so "1" answers 1; they
// take a JSON batch apart; they read a response on the GET stream as the answer to any request still
// pending), so what is relayed is only what the gateway classified and the inspection saw:
//   request       a server's request to the client (id and method): rebuilt from its members;
//   notification  a method without an id: rebuilt from its members;
//   response      `result` or `error` without a method, ids compared as clients compare them;
//   batch         taken apart, each element classified on its own (a batch inside a batch is junk);
//   junk          anything else (not JSON, no jsonrpc 2.0, a method and a result at once, ...).
// On a POST stream one response passes: the first whose id a client would match with the request's,
// rewritten to carry exactly the request's id; a second answer, or an answer to another id, is a
// stray (dropped, traced by the inspection). On the GET stream nothing is awaited: every response is
// inspected as an answer to a request of unknown method.
type Obj = Record<string, unknown>;
type Id = string | number;

/** What one classified message is for the stream it came on. */
export type Framed =
  /** The response to the request this POST carries, its id the request's. */
  | { readonly role: 'answer'; readonly message: Obj }
  /** A response on the GET stream: an answer to some request, which one the gateway cannot tell. */
  | { readonly role: 'response'; readonly message: Obj }
  /** A response nothing on this stream waits for (another id, or a second answer). */
  | { readonly role: 'stray'; readonly message: Obj }
  | { readonly role: 'request'; readonly message: Obj & { id: Id; method: string } }
  | { readonly role: 'notification'; readonly message: Obj & { method: string } }
  | { readonly role: 'junk'; readonly why: string };

const isObject = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const isId = (v: unknown): v is Id => typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v));

/**
 * Whether a client could take `got` for the answer to `awaited`: the same value, the same text, or
 * the same number (the SDKs' Number(id) lookup; "1", "1.0" and " 1" all answer 1).
 */
export function sameId(got: unknown, awaited: Id): boolean {
  if (got === awaited) return true;
  if (!isId(got)) return false;
  if (String(got) === String(awaited)) return true;
  const a = Number(got);
  return !Number.isNaN(a) && a === Number(awaited);
}

type Plain =
  | { kind: 'request'; message: Obj & { id: Id; method: string } }
  | { kind: 'notification'; message: Obj & { method: string } }
  | { kind: 'response'; id: unknown; body: { result: unknown } | { error: Obj } }
  | { kind: 'junk'; why: string };

function withParams(base: Obj, params: unknown): Obj {
  return params === undefined ? base : { ...base, params };
}

/** One message (not a batch), its members rebuilt so that what is relayed is what was classified. */
function classifyOne(v: unknown): Plain {
  if (Array.isArray(v)) return { kind: 'junk', why: 'a batch inside a batch' };
  if (!isObject(v) || v.jsonrpc !== '2.0') return { kind: 'junk', why: 'not a JSON-RPC 2.0 message' };
  const hasResult = 'result' in v;
  const hasError = 'error' in v;
  if ('method' in v) {
    if (typeof v.method !== 'string' || hasResult || hasError) return { kind: 'junk', why: 'a method with an answer' };
    if (v.params !== undefined && !isObject(v.params)) return { kind: 'junk', why: 'params that are not an object' };
    if (!('id' in v)) return { kind: 'notification', message: withParams({ jsonrpc: '2.0', method: v.method }, v.params) as never };
    if (!isId(v.id)) return { kind: 'junk', why: 'a request id that is neither a string nor a number' };
    return { kind: 'request', message: withParams({ jsonrpc: '2.0', id: v.id, method: v.method }, v.params) as never };
  }
  if (hasResult === hasError) return { kind: 'junk', why: hasResult ? 'both a result and an error' : 'neither a method nor an answer' };
  if (hasResult) return { kind: 'response', id: v.id, body: { result: v.result } };
  const e = v.error;
  if (!isObject(e)) return { kind: 'junk', why: 'an error that is not an object' };
  return {
    kind: 'response',
    id: v.id,
    body: { error: { code: e.code, message: e.message, ...('data' in e ? { data: e.data } : {}) } },
  };
}

/** The classification of one payload (a parsed JSON body or SSE event data): a batch gives its elements. */
export function classifyPayload(value: unknown): Plain[] {
  if (!Array.isArray(value)) return [classifyOne(value)];
  if (value.length === 0) return [{ kind: 'junk', why: 'an empty batch' }];
  return value.map(classifyOne);
}

/** The framing of one upstream stream: the POST answer to `awaited`, or the GET stream (null). */
export class StreamFraming {
  private answered = false;

  /** `awaited`: the id of the request the POST carries; null on the GET stream (or a POST of a notification). */
  constructor(private readonly awaited: Id | null) {}

  /** Whether the answer to the awaited request has been framed. */
  get hasAnswer(): boolean {
    return this.answered;
  }

  frame(value: unknown): Framed[] {
    return classifyPayload(value).map((p) => this.role(p));
  }

  private role(p: Plain): Framed {
    if (p.kind === 'junk') return { role: 'junk', why: p.why };
    if (p.kind !== 'response')
      return p.kind === 'request' ? { role: 'request', message: p.message } : { role: 'notification', message: p.message };
    const awaited = this.awaited;
    if (awaited === null) {
      return { role: 'response', message: { jsonrpc: '2.0', id: isId(p.id) ? p.id : null, ...p.body } };
    }
    // An error without an id is the answer to a request that could not be read (JSON-RPC): taken as this one's.
    const mine = sameId(p.id, awaited) || ((p.id === null || p.id === undefined) && 'error' in p.body);
    if (mine && !this.answered) {
      this.answered = true;
      return { role: 'answer', message: { jsonrpc: '2.0', id: awaited, ...p.body } };
    }
    return { role: 'stray', message: { jsonrpc: '2.0', id: isId(p.id) ? p.id : null, ...p.body } };
  }
}
