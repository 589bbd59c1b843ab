// Stage 5: what goes into the tool. The content policies' detectors run over every string of the
// call's arguments (daemon/mcp/content/inspect.ts) and of every other member of its params
// (`_meta`, ...: the upstream reads them too; findings there are named `params._meta...`), after the
// rule (a denied call is refused without it) and before the approval stage (nobody is asked to
// approve a call that would be refused anyway). A BLOCK finding refuses the call (-32003
// CONTENT_BLOCKED, the finding types and paths in error.data, never the values); REDACT masks the
// values in what is forwarded; FLAG only marks the trace. A detector that cannot run, or a message
// whose inspection outruns its total budget, refuses the call (CONTENT_CHECK_FAILED, fail closed).
// `requestContentStage` does the same for the params of every other method (the uri of
// resources/read, the arguments of prompts/get, the values of completion/complete, ...), under the
// server's and the project's argument policies. The inspection is made ahead, in turns, by the
// caller (inspectAhead: a large message does not hold the daemon's thread); run alone (tests), the
// stage makes it itself.
import { contentRules, type ContentRule } from '../../content/effective.js';
import { type ContentFinding, findingSummary, type Inspection, inspect, redactValue, strongest } from '../../content/inspect.js';
import { inspectContent } from '../../content/inspect-pool.js';
import { pass, refuse, type CallContext, type CallState, type StageVerdict, type Stage } from './types.js';

/** What the stage reads: [arguments, other params], one value so that one budget bounds the message. */
interface ContentInput {
  readonly value: readonly [Record<string, unknown>, Record<string, unknown>];
  readonly rules: readonly ContentRule[];
}

export function contentInput(ctx: CallContext): ContentInput {
  if (ctx.method !== undefined) {
    return { value: [{}, ctx.arguments ?? {}], rules: contentRules(ctx.contentPolicies, ctx.server.id, null, 'arguments') };
  }
  return {
    value: [ctx.arguments ?? {}, ctx.otherParams ?? {}],
    rules: contentRules(ctx.contentPolicies, ctx.server.id, ctx.toolName, 'arguments'),
  };
}

/**
 * The inspection the stage will read, made within `totalMs`: a large message's in a worker thread,
 * a small one's in turns (inspect-pool.ts inspectContent).
 */
export async function inspectAhead(ctx: CallContext, totalMs: number): Promise<CallContext> {
  const { value, rules } = contentInput(ctx);
  return { ...ctx, inspection: await inspectContent(value, rules, originOf(ctx), ctx.detectorBudgetMs, totalMs) };
}

/** The caller's own words are read as a prompt; a client's answer (a model's output, a form's values) as data. */
const originOf = (ctx: CallContext): 'prompt' | 'data' => (ctx.method === CLIENT_ANSWER ? 'data' : 'prompt');

/**
 * The method under which a client's answer to a server's own request (a response: sampling's model
 * output, an elicitation's values) is inspected: its result is read as a request's params are.
 */
export const CLIENT_ANSWER = 'response';

/**
 * A finding's path from the pair: `$[0]...` is an argument's (`$...`), `$[1]...` another member of
 * params (`params...`), or of a client's answer's result (`result...`).
 */
const named = (f: ContentFinding, other: string): ContentFinding => ({
  ...f,
  path: f.path.startsWith('$[0]') ? `$${f.path.slice(4)}` : `${other}${f.path.slice(4)}`,
});

function verdictOf(ctx: CallContext, what: Record<string, string>, done: string): StageVerdict {
  const { value, rules } = contentInput(ctx);
  const seen: Inspection = ctx.inspection ?? inspect(value, rules, originOf(ctx), ctx.detectorBudgetMs);
  if (!seen.ok) return refuse('CONTENT_CHECK_FAILED', { ...what, error_class: seen.errorClass, detector: seen.detector });
  const other = ctx.method === CLIENT_ANSWER ? 'result' : 'params';
  const findings = seen.findings.map((f) => named(f, other));
  const effect = strongest(findings);
  if (effect === 'BLOCK') {
    const blocking = findings.filter((f) => f.effect === 'BLOCK');
    const refusal = refuse('CONTENT_BLOCKED', { ...what, findings: findingSummary(blocking) }, contentMessage(blocking, done));
    return { ...refusal, detail: { ...refusal.detail, findings } };
  }
  if (effect === null) return pass();
  // redactValue copies only what it masks: a part it left alone is the very object it was given.
  const masked = effect === 'REDACT' ? (redactValue(value, seen.located) as typeof value) : value;
  const state: CallState = {
    argumentFindings: findings,
    ...(masked[0] !== value[0] && ctx.method === undefined ? { forwardArguments: masked[0] } : {}),
    ...(masked[1] !== value[1] ? { forwardParams: masked[1] } : {}),
  };
  return pass(state);
}

export const contentStage: Stage = {
  name: 'content',
  run: (ctx) => verdictOf(ctx, { tool: ctx.toolName }, 'The tool was not called.'),
};

/** The content of a request other than tools/call: its whole params, under the server's and project's argument policies. */
export const requestContentStage: Stage = {
  name: 'content',
  run: (ctx) =>
    ctx.method === undefined || ctx.arguments === undefined
      ? pass()
      : verdictOf(
          ctx,
          { method: ctx.method },
          ctx.method === CLIENT_ANSWER ? 'The server did not receive it.' : 'The upstream did not receive it.',
        ),
};

function contentMessage(blocking: readonly { entity: string; path: string }[], done: string): string {
  const what = [...new Set(blocking.map((f) => `${f.entity} in ${f.path}`))].slice(0, 3).join(', ');
  const noun = done.startsWith('The tool') ? 'call' : done.startsWith('The server') ? 'answer' : 'request';
  return `The ${noun} was refused: a content policy blocks ${what}. ${done}`;
}
