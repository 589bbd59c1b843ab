// Stage 5: what goes into the tool. The content policies' detectors run over every string of the
// call's arguments (daemon/mcp/content/inspect.ts), after the rule (a denied call is refused
// without it) and before the approval stage (nobody is asked to approve a call that would be
// refused anyway). A BLOCK finding refuses the call (-32003 CONTENT_BLOCKED, the finding types and
// paths in error.data, never the values); REDACT masks the values in what is forwarded; FLAG only
// marks the trace. A detector that cannot run refuses the call (CONTENT_CHECK_FAILED, fail closed).
import { contentRules } from '../../content/effective.js';
import { findingSummary, inspect, redactValue, strongest } from '../../content/inspect.js';
import { pass, refuse, type Stage } from './types.js';

export const contentStage: Stage = {
  name: 'content',
  run(ctx) {
    const rules = contentRules(ctx.contentPolicies, ctx.server.id, ctx.toolName, 'arguments');
    // The caller's own arguments: the detectors read them as the user's words, not as data.
    const seen = inspect(ctx.arguments ?? {}, rules, 'prompt', ctx.detectorBudgetMs);
    if (!seen.ok) {
      return refuse('CONTENT_CHECK_FAILED', { tool: ctx.toolName, error_class: seen.errorClass, detector: seen.detector });
    }
    const effect = strongest(seen.findings);
    if (effect === 'BLOCK') {
      const blocking = seen.findings.filter((f) => f.effect === 'BLOCK');
      const refusal = refuse('CONTENT_BLOCKED', { tool: ctx.toolName, findings: findingSummary(blocking) }, contentMessage(blocking));
      return { ...refusal, detail: { ...refusal.detail, findings: seen.findings } };
    }
    if (effect === null) return pass();
    return pass({
      argumentFindings: seen.findings,
      ...(effect === 'REDACT' ? { forwardArguments: redactValue(ctx.arguments ?? {}, seen.located) as Record<string, unknown> } : {}),
    });
  },
};

function contentMessage(blocking: readonly { entity: string; path: string }[]): string {
  const what = [...new Set(blocking.map((f) => `${f.entity} in ${f.path}`))].slice(0, 3).join(', ');
  return `The call was refused: a content policy blocks ${what}. The tool was not called.`;
}
