// What comes back from an upstream, one JSON-RPC message at a time as framing.ts classified it,
// before it is passed on: the answer to a tools/call, resources/read or prompts/get the caller waits
// for, the error answer of any request (hosts show it to the model), a response on the GET stream (an
// answer to some request), and the server's own requests to the client (sampling/createMessage,
// elicitation/create); a response nothing waits for and junk are dropped. Every string of an answer is
// data the model will read (origin `data`, so instructions addressed to the model count); a server's
// request is read as the server's own prompt (origin `prompt`: asking is what it is for). Binary
// content (a `blob`, the `data` of an image or audio item) is passed on and counted; protocol members
// (`resultType`, `type`, `mimeType`) holding a plain token are skipped.
//
//   BLOCK (injection at high confidence by default) in an answer: withheld. A tools/call gets a
//         valid result with isError true and a short text naming the finding and the trace; other
//         methods a -32003 CONTENT_BLOCKED error (their results have no isError);
//   BLOCK in a server's request: not shown to the client; the server is answered with -32003;
//   REDACT (secrets by default): the values masked with typed placeholders, the rest unchanged;
//   FLAG: passed on, recorded.
// Notifications the client shows or logs (`notifications/progress` with its message,
// `notifications/message`, the server's log lines) are inspected as data too: BLOCK (or a detector
// that cannot run) keeps the notification from the client, REDACT masks it, FLAG records it. An
// instruction split across several progress messages is read whole: the messages of one stream are
// joined as they come, without a separator (a split may fall inside a word; the last
// MAX_JOINED_PROGRESS characters) and the join is read by the injection rules; the
// message that completes an instruction, and every later one, is kept from the client.
// A detector that cannot run withholds the answer or refuses the request (fail closed).
// Pure: the caller writes the trace (MCP_CONTENT) and answers the server.
import type { TextOrigin } from '../../detectors/types.js';
import type { Framed } from '../client/framing.js';
import type { ContentRule } from './effective.js';
import { findingSummary, redactValue, strongest, type ContentFinding, type Inspection } from './inspect.js';
import { inspectContent } from './inspect-pool.js';

/** Answers whose results are inspected: the methods that bring content to the model. */
const INSPECTED_RESULTS: ReadonlySet<string> = new Set(['tools/call', 'resources/read', 'prompts/get']);
/** Server-to-client requests whose parameters are inspected: they put text in front of the model or the user. */
const INSPECTED_REQUESTS: ReadonlySet<string> = new Set(['sampling/createMessage', 'elicitation/create']);
/** Notifications whose parameters are inspected: their text is shown to the user or kept in the client's logs. */
const INSPECTED_NOTIFICATIONS: ReadonlySet<string> = new Set(['notifications/progress', 'notifications/message']);
/** How much of a stream's progress messages is read as one text. */
const MAX_JOINED_PROGRESS = 8192;

/**
 * What one inspector keeps for its trace: a server's GET stream can live for hours and carry any
 * number of messages, so findings and originals are bounded (the rest counted) and memory stays flat.
 */
const MAX_KEPT_FINDINGS = 200;
const MAX_KEPT_ORIGINALS = 20;

export type ResultOutcome = 'withheld' | 'masked' | 'flagged' | 'refused_to_server' | 'dropped';

/** What a message becomes: passed on (perhaps rewritten), or kept from the client and the server answered. */
export type MessageVerdict =
  | { readonly kind: 'pass'; readonly message: unknown }
  | { readonly kind: 'drop' }
  | { readonly kind: 'refuse_server_request'; readonly id: string | number; readonly error: Record<string, unknown> };

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Everything one answer stream brought back: findings in order, what was done, binary items passed. */
export class ResultInspector {
  readonly findings: (ContentFinding & { readonly message: string })[] = [];
  readonly outcomes = new Set<ResultOutcome>();
  /** The messages as the upstream sent them, of those withheld, masked or refused (sealed at audit level full). */
  readonly originals: unknown[] = [];
  errorClass: string | null = null;
  binaryItems = 0;

  constructor(
    private readonly rules: readonly ContentRule[],
    private readonly budgetMs: number,
    /** The request the caller waits an answer for (id and method); null on the server's GET stream. */
    private readonly awaited: { readonly id: string | number; readonly method: string } | null,
    /** The id of the trace this inspection will be written under, named in a withheld answer. */
    readonly traceId: string,
    /** The detector time one message may cost in all (GATEWAY_INSPECTION_BUDGET_MS); past it, fail closed. */
    private readonly totalMs = Number.POSITIVE_INFINITY,
  ) {}

  /** Findings past MAX_KEPT_FINDINGS, counted, not kept. */
  findingsDropped = 0;
  /** Originals past MAX_KEPT_ORIGINALS, counted, not kept. */
  originalsDropped = 0;

  private keepOriginal(message: unknown): void {
    if (this.originals.length < MAX_KEPT_ORIGINALS) this.originals.push(message);
    else this.originalsDropped++;
  }

  /** Whether any message of this stream can be inspected at all (no rule: nothing to do). */
  get active(): boolean {
    return this.rules.length > 0;
  }

  /** True when the stream gave something a trace must record. */
  get noteworthy(): boolean {
    return this.findings.length > 0 || this.outcomes.size > 0 || this.errorClass !== null;
  }

  /** BLOCKED (withheld or refused), MODIFIED (masked), FLAGGED, or PASSED. */
  get decision(): 'BLOCKED' | 'MODIFIED' | 'FLAGGED' | 'PASSED' {
    if (this.outcomes.has('withheld') || this.outcomes.has('refused_to_server') || this.outcomes.has('dropped')) return 'BLOCKED';
    if (this.outcomes.has('masked')) return 'MODIFIED';
    return this.findings.length > 0 ? 'FLAGGED' : 'PASSED';
  }

  /**
   * One message as framing.ts classified it: what the client may see of it. A large message is
   * inspected in a worker thread (inspect-pool.ts); the messages of one stream go through one at a time.
   */
  async inspectMessage(framed: Framed): Promise<MessageVerdict> {
    if (framed.role === 'junk' || framed.role === 'stray') return this.drop(framed);
    const message = framed.message;
    if (!this.active) return { kind: 'pass', message };
    switch (framed.role) {
      case 'request':
        return INSPECTED_REQUESTS.has(framed.message.method) ? this.serverRequest(message, framed.message.id) : { kind: 'pass', message };
      case 'notification':
        return INSPECTED_NOTIFICATIONS.has(framed.message.method)
          ? this.notification(message, framed.message.method)
          : { kind: 'pass', message };
      case 'response':
        // On the GET stream: an answer to a request of unknown method, read as any answer is.
        return { kind: 'pass', message: await this.answer(message, { id: message.id as string | number, method: 'unknown' }) };
      case 'answer': {
        const awaited = this.awaited ?? { id: message.id as string | number, method: 'unknown' };
        const inspected = 'error' in message || INSPECTED_RESULTS.has(awaited.method);
        return { kind: 'pass', message: inspected ? await this.answer(message, awaited) : message };
      }
    }
  }

  /** Messages dropped by their framing, counted by why (the trace's `dropped_messages`). */
  readonly droppedMessages: Record<string, number> = {};

  private drop(framed: Framed & { role: 'junk' | 'stray' }): MessageVerdict {
    const why = framed.role === 'stray' ? 'response_not_awaited' : 'not_a_message';
    this.droppedMessages[why] = (this.droppedMessages[why] ?? 0) + 1;
    if (framed.role === 'stray') this.keepOriginal(framed.message);
    this.outcomes.add('dropped');
    return { kind: 'drop' };
  }

  /** Inspects `value` for a message of kind `what`; the strongest effect, or 'failed'. */
  private async examine(
    value: unknown,
    what: string,
    origin: TextOrigin,
    rules: readonly ContentRule[] = this.rules,
  ): Promise<{ effect: 'BLOCK' | 'REDACT' | 'FLAG' | null | 'failed'; masked?: unknown }> {
    let seen: Inspection;
    try {
      seen = await inspectContent(value, rules, origin, this.budgetMs, this.totalMs, 'upstreamMessage');
    } catch {
      this.errorClass = 'detector_error';
      return { effect: 'failed' };
    }
    this.binaryItems += seen.binaryItems;
    for (const f of seen.findings) {
      if (this.findings.length < MAX_KEPT_FINDINGS) this.findings.push({ ...f, message: what });
      else this.findingsDropped++;
    }
    if (!seen.ok) {
      this.errorClass = seen.errorClass;
      return { effect: 'failed' };
    }
    const effect = strongest(seen.findings);
    if (effect !== 'REDACT') return { effect };
    try {
      return { effect, masked: redactValue(value, seen.located) };
    } catch {
      this.errorClass = 'detector_error'; // a value too deep to rebuild: withheld rather than passed unmasked
      return { effect: 'failed' };
    }
  }

  /**
   * The answer to a request: its result or, just as much, its error (hosts show a tool's error to the
   * model), read as data. An error is examined as `{error: {message, data}}`, so findings name
   * `$.error.message` or `$.error.data...`; a withheld error becomes the gateway's -32003.
   */
  private async answer(message: Record<string, unknown>, awaited: { id: string | number; method: string }): Promise<unknown> {
    const isError = 'error' in message;
    const member = isError ? 'error' : 'result';
    const seen = isError
      ? await this.examine({ error: message.error }, `error of ${awaited.method}`, 'data')
      : await this.examine(message.result, `result of ${awaited.method}`, 'data');
    if (seen.effect !== null && seen.effect !== 'FLAG') this.keepOriginal(message);
    if (seen.effect === 'BLOCK' || seen.effect === 'failed') {
      this.outcomes.add('withheld');
      return this.withheld(message, isError ? { method: 'unknown' } : awaited, seen.effect === 'failed');
    }
    if (seen.effect === 'REDACT') {
      this.outcomes.add('masked');
      return { ...message, [member]: isError ? (seen.masked as { error: unknown }).error : seen.masked };
    }
    if (seen.effect === 'FLAG') this.outcomes.add('flagged');
    return message;
  }

  private withheld(message: Record<string, unknown>, awaited: { method: string }, failed: boolean): unknown {
    const blocking = this.findings.filter((f) => f.effect === 'BLOCK');
    const why = failed
      ? `its content could not be inspected (${this.errorClass})`
      : `a content policy found ${[...new Set(blocking.map((f) => `${f.entity} in ${f.path}`))].slice(0, 3).join(', ')}`;
    const text = `The gateway withheld this result: ${why}. Trace ${this.traceId}.`;
    if (awaited.method === 'tools/call') {
      // A valid result of the era the server speaks: a 2026-era client requires its resultType.
      const era = isObject(message.result) && 'resultType' in message.result ? { resultType: 'complete' } : {};
      return { ...message, result: { ...era, content: [{ type: 'text', text }], isError: true } };
    }
    const { result: _withheld, error: _withheldError, ...rest } = message;
    return {
      ...rest,
      error: {
        code: -32003,
        message: text,
        data: {
          reason: failed ? 'CONTENT_CHECK_FAILED' : 'CONTENT_BLOCKED',
          trace_id: this.traceId,
          ...(failed ? { error_class: this.errorClass } : { findings: findingSummary(blocking) }),
        },
      },
    };
  }

  private async serverRequest(message: Record<string, unknown>, id: string | number): Promise<MessageVerdict> {
    // A sampling request is a prompt, an elicitation a question to the user: instructions are what they
    // are, so they are read as the server's own words (origin prompt), where only injection counts.
    const seen = await this.examine(message.params ?? {}, `request ${String(message.method)}`, 'prompt');
    if (seen.effect !== null && seen.effect !== 'FLAG') this.keepOriginal(message);
    if (seen.effect === 'BLOCK' || seen.effect === 'failed') {
      this.outcomes.add('refused_to_server');
      const reason = seen.effect === 'failed' ? 'CONTENT_CHECK_FAILED' : 'CONTENT_BLOCKED';
      return {
        kind: 'refuse_server_request',
        id,
        error: {
          code: -32003,
          message: `The gateway refused this ${String(message.method)} request: ${reason === 'CONTENT_BLOCKED' ? 'a content policy blocks what it carries' : 'its content could not be inspected'}.`,
          data: { reason, trace_id: this.traceId },
        },
      };
    }
    if (seen.effect === 'REDACT') {
      this.outcomes.add('masked');
      return { kind: 'pass', message: { ...message, params: seen.masked } };
    }
    if (seen.effect === 'FLAG') this.outcomes.add('flagged');
    return { kind: 'pass', message };
  }

  /** The progress messages of this stream so far, joined; `dropping` once the join carried an instruction. */
  private progressJoined = '';
  private dropping = false;

  private async notification(message: Record<string, unknown>, method: string): Promise<MessageVerdict> {
    const params = message.params ?? {};
    let seen = await this.examine(params, `notification ${method}`, 'data');
    const text = isObject(params) && method === 'notifications/progress' ? params.message : undefined;
    if (typeof text === 'string' && (seen.effect === null || seen.effect === 'FLAG')) {
      this.progressJoined = `${this.progressJoined}${text}`.slice(-MAX_JOINED_PROGRESS);
      const injection = this.rules.filter((r) => r.detector === 'injection');
      const joined = this.dropping
        ? { effect: 'BLOCK' as const }
        : injection.length > 0
          ? await this.examine({ progress_messages: this.progressJoined }, 'progress messages of the stream, joined', 'data', injection)
          : { effect: null };
      if (joined.effect === 'BLOCK' || joined.effect === 'failed') seen = joined;
    }
    if (seen.effect !== null && seen.effect !== 'FLAG') this.keepOriginal(message);
    if (seen.effect === 'BLOCK' || seen.effect === 'failed') {
      if (typeof text === 'string') this.dropping = true;
      this.outcomes.add('dropped');
      return { kind: 'drop' };
    }
    if (seen.effect === 'REDACT') {
      this.outcomes.add('masked');
      return { kind: 'pass', message: { ...message, params: seen.masked } };
    }
    if (seen.effect === 'FLAG') this.outcomes.add('flagged');
    return { kind: 'pass', message };
  }
}
