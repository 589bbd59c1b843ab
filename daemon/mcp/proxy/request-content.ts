// The trace of what the content stage found in a request other than tools/call:
// those requests write no decision trace of their own, so findings in their params (the uri of a
// resources/read, the arguments of a prompts/get, a completion's value, `_meta`) are recorded as
// traceType MCP_CONTENT, `direction: arguments` (a client's answer to a server's request too, as
// method `response`): BLOCKED (the request refused, or its content not
// inspectable), MODIFIED (masked before forwarding) or FLAGGED. Types, paths and scores, never values.
import type { Deps } from '../../deps.js';
import type { ContentFinding } from '../content/inspect.js';
import type { Decision } from './stages/types.js';
import { argumentFindings } from './record.js';
import { RESULT_TRACE_TYPE } from './results.js';
import { CLIENT_ANSWER } from './stages/content.js';

export interface RequestScope {
  readonly projectId: string;
  readonly server: { readonly id: string; readonly name: string };
  readonly method: string;
  readonly agentId: string | null;
  readonly environment: string;
}

const what = (method: string): string => (method === CLIENT_ANSWER ? "the client's answer to a server request" : `${method} request`);

const CONTENT_REFUSALS: ReadonlySet<string> = new Set(['CONTENT_BLOCKED', 'CONTENT_CHECK_FAILED']);

/** Whether the gate's decision is one the content stage made (a refusal of its own, or findings to record). */
export function contentDecided(d: Decision): boolean {
  return d.kind === 'refuse' ? CONTENT_REFUSALS.has(d.refusal.code) : argumentFindings(d).length > 0;
}

/** Writes the trace before the request goes on (no store takes it: 503, nothing forwarded, as a tools/call); its id. */
export async function recordRequestContent(deps: Deps, scope: RequestScope, d: Decision): Promise<string> {
  const findings: readonly ContentFinding[] = argumentFindings(d);
  const decision =
    d.kind === 'refuse' ? 'BLOCKED' : d.state.forwardParams !== undefined ? 'MODIFIED' : findings.length > 0 ? 'FLAGGED' : 'PASSED';
  const entities = [...new Set(findings.map((f) => f.entity))].join(', ');
  const written = await deps.writer.appendOrQueue(scope.projectId, {
    traceType: RESULT_TRACE_TYPE,
    decision,
    reason: `content of ${what(scope.method)}: ${decision.toLowerCase()}${entities ? ` (${entities})` : ''}`,
    actionName: 'mcp.content.arguments',
    environment: scope.environment,
    agentId: scope.agentId,
    content: {
      call_trace_id: null,
      method: scope.method,
      server_id: scope.server.id,
      server_name: scope.server.name,
      tool: null,
      direction: 'arguments',
      content_findings: { arguments: findings },
      ...(d.kind === 'refuse' ? { refusal: d.refusal.code, ...(d.refusal.detail.data ?? {}) } : {}),
    },
  });
  return written.id;
}
