// Stage 5: what goes into the tool. The content policies' detectors run over every string of the
// call's arguments (daemon/mcp/content/inspect.ts) and of every other member of its params
// (`_meta`, ...: the upstream reads them too; findings there are named `params._meta...`), after the
// rule (a denied call is refused without it) and before the approval stage (nobody is asked to
// approve a call that would be refused anyway). A BLOCK finding refuses the call (-32003
// CONTENT_BLOCKED, the finding types and paths in error.data, never the values); REDACT masks the
// values in what is forwarded; FLAG only marks the trace. A detector that cannot run refuses the
// call (CONTENT_CHECK_FAILED, fail closed). `requestContentStage` does the same for the params of
// every other method (the uri of resources/read, the arguments of prompts/get, the values of
// completion/complete, ...), under the server's and the project's argument policies.
import { contentRules, type ContentRule } from '../../content/effective.js';
import { type ContentFinding, findingSummary, inspect, redactValue, strongest } from '../../content/inspect.js';
import { pass, refuse, type CallContext, type CallState, type StageVerdict, type Stage } from './types.js';

type Part = { readonly value: Record<string, unknown>; readonly name: string };

/** A finding in another member of params, named from `params` so it cannot be taken for an argument's. */
const inParams = (f: ContentFinding): ContentFinding => ({ ...f, path: `params${f.path.slice(1)}` });

/**
 * The detectors over each part; BLOCK refuses, REDACT masks that part. `what` names the request in a
 * refusal (`tool` or `method` in error.data); `done` says what did not happen.
 */
function inspectParts(
  ctx: CallContext,
  rules: readonly ContentRule[],
  parts: readonly Part[],
  what: Record<string, string>,
  done: string,
): StageVerdict {
  const findings: ContentFinding[] = [];
  const masked: Record<string, Record<string, unknown>> = {};
  for (const part of parts) {
    // The caller's own words to the detectors: read as a prompt, not as data.
    const seen = inspect(part.value, rules, 'prompt', ctx.detectorBudgetMs);
    if (!seen.ok) return refuse('CONTENT_CHECK_FAILED', { ...what, error_class: seen.errorClass, detector: seen.detector });
    findings.push(...(part.name === 'arguments' ? seen.findings : seen.findings.map(inParams)));
    if (strongest(seen.findings) === 'REDACT') masked[part.name] = redactValue(part.value, seen.located) as Record<string, unknown>;
  }
  const effect = strongest(findings);
  if (effect === 'BLOCK') {
    const blocking = findings.filter((f) => f.effect === 'BLOCK');
    const refusal = refuse('CONTENT_BLOCKED', { ...what, findings: findingSummary(blocking) }, contentMessage(blocking, done));
    return { ...refusal, detail: { ...refusal.detail, findings } };
  }
  if (effect === null) return pass();
  const state: CallState = {
    argumentFindings: findings,
    ...(masked.arguments ? { forwardArguments: masked.arguments } : {}),
    ...(masked.params ? { forwardParams: masked.params } : {}),
  };
  return pass(state);
}

export const contentStage: Stage = {
  name: 'content',
  run(ctx) {
    const rules = contentRules(ctx.contentPolicies, ctx.server.id, ctx.toolName, 'arguments');
    const parts: Part[] = [{ value: ctx.arguments ?? {}, name: 'arguments' }];
    if (ctx.otherParams && Object.keys(ctx.otherParams).length > 0) parts.push({ value: ctx.otherParams, name: 'params' });
    return inspectParts(ctx, rules, parts, { tool: ctx.toolName }, 'The tool was not called.');
  },
};

/** The content of a request other than tools/call: its whole params, under the server's and project's argument policies. */
export const requestContentStage: Stage = {
  name: 'content',
  run(ctx) {
    if (ctx.method === undefined || ctx.arguments === undefined) return pass();
    const rules = contentRules(ctx.contentPolicies, ctx.server.id, null, 'arguments');
    return inspectParts(ctx, rules, [{ value: ctx.arguments, name: 'params' }], { method: ctx.method }, 'The upstream did not receive it.');
  },
};

function contentMessage(blocking: readonly { entity: string; path: string }[], done: string): string {
  const what = [...new Set(blocking.map((f) => `${f.entity} in ${f.path}`))].slice(0, 3).join(', ');
  return `The ${done.startsWith('The tool') ? 'call' : 'request'} was refused: a content policy blocks ${what}. ${done}`;
}
