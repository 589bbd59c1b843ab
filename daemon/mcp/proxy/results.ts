// Content inspection of what comes back through the proxy, wired to forwarding: the rules in force
// for the answer (results policies of the server and tool, daemon/mcp/content/effective.ts), the
// transform forward.ts and gateway-session.ts apply to each message, the gateway's answer to a
// server request it refused, and the trace of what was found.
//
// The trace: the decision of a tools/call (MCP_TOOL_CALL) is durable before the call is forwarded,
// so what its result held cannot be part of it without rewriting a hash-chained record. When a
// result (or a server request, or another method's answer) gave findings, one more trace records
// them, traceType MCP_CONTENT, linked by `call_trace_id`: decision BLOCKED (withheld, or a server
// request refused), MODIFIED (masked) or FLAGGED; types, JSON paths and scores, never values; the
// originals sealed at audit level full only. A clean answer writes nothing more.
import { randomUUID } from 'node:crypto';
import type { Deps } from '../../deps.js';
import type { TraceInput } from '../../ledger/streams.js';
import { sealedOriginal } from '../../traces/at-rest.js';
import type { Framed } from '../client/framing.js';
import { contentRules, type LoadedContentPolicy } from '../content/effective.js';
import { ResultInspector } from '../content/results.js';
import { answerUpstream } from './answer-upstream.js';
import { DROP, upstreamLimits } from './relay-request.js';

export const RESULT_TRACE_TYPE = 'MCP_CONTENT';

export interface ResultScope {
  readonly projectId: string;
  readonly server: { readonly id: string; readonly name: string };
  /** The tool of a tools/call (its tool policies apply); null for other methods. */
  readonly toolName: string | null;
  /** The request the caller waits an answer for; null on the server's GET stream. */
  readonly awaited: { readonly id: string | number; readonly method: string } | null;
  /** The decision trace of the tools/call, when there is one. */
  readonly callTraceId: string | null;
  readonly agentId: string | null;
  readonly environment: string;
  /** Where a refused server request is answered: the relayed request's URL and headers (null: no session to answer on). */
  readonly upstream: { readonly url: URL; readonly headers: Record<string, string> } | null;
}

export interface ResultWatch {
  readonly inspector: ResultInspector;
  /** For forward.ts / gateway-session.ts: each classified message as it may be passed on, or DROP. */
  transform(framed: Framed): Promise<unknown>;
  /** Writes the MCP_CONTENT trace when something was found; never throws. */
  record(): Promise<void>;
}

/** Null when no results policy is in force for this answer: it is passed on untouched, at no cost. */
export function watchResults(deps: Deps, policies: readonly LoadedContentPolicy[], scope: ResultScope): ResultWatch | null {
  const rules = contentRules(policies, scope.server.id, scope.toolName, 'results');
  if (rules.length === 0) return null;
  const inspector = new ResultInspector(rules, deps.config.detectorBudgetMs, scope.awaited, randomUUID(), deps.config.inspectionBudgetMs);
  return {
    inspector,
    async transform(framed) {
      const verdict = await inspector.inspectMessage(framed);
      if (verdict.kind === 'pass') return verdict.message;
      if (verdict.kind === 'drop') return DROP;
      if (scope.upstream !== null) {
        const { url, headers } = scope.upstream;
        answerUpstream(upstreamLimits(deps.config, deps.upstream), url, headers, {
          jsonrpc: '2.0',
          id: verdict.id,
          error: verdict.error,
        }).catch((err: unknown) =>
          deps.log.warn({ err, server_id: scope.server.id }, 'could not answer a refused server request upstream'),
        );
      }
      return DROP;
    },
    async record() {
      if (!inspector.noteworthy) return;
      try {
        const raw =
          inspector.originals.length > 0 ? await sealedOriginal(deps.sql, deps.secretBox, scope.projectId, inspector.originals) : undefined;
        await deps.writer.appendOrQueue(scope.projectId, resultTrace(inspector, scope, raw));
      } catch (err) {
        deps.log.error({ err, trace_id: inspector.traceId }, 'the trace of a content inspection could not be written');
      }
    },
  };
}

function reasonOf(inspector: ResultInspector, scope: ResultScope): string {
  const what = scope.awaited ? `${scope.awaited.method}${scope.toolName ? ` ${scope.toolName}` : ''}` : 'server stream';
  const done = [...inspector.outcomes].join(', ') || 'flagged';
  const entities = [...new Set(inspector.findings.map((f) => f.entity))].join(', ');
  return `content of ${what}: ${done}${entities ? ` (${entities})` : ''}${inspector.errorClass ? ` [${inspector.errorClass}]` : ''}`;
}

export function resultTrace(inspector: ResultInspector, scope: ResultScope, raw?: unknown): TraceInput {
  return {
    id: inspector.traceId,
    traceType: RESULT_TRACE_TYPE,
    decision: inspector.decision,
    reason: reasonOf(inspector, scope),
    actionName: 'mcp.content.results',
    environment: scope.environment,
    agentId: scope.agentId,
    content: {
      call_trace_id: scope.callTraceId,
      method: scope.awaited?.method ?? null,
      server_id: scope.server.id,
      server_name: scope.server.name,
      tool: scope.toolName,
      direction: 'results',
      outcomes: [...inspector.outcomes],
      content_findings: { results: inspector.findings },
      binary_items: inspector.binaryItems,
      ...(inspector.findingsDropped + inspector.originalsDropped > 0
        ? { not_kept: { findings: inspector.findingsDropped, originals: inspector.originalsDropped } }
        : {}),
      ...(Object.keys(inspector.droppedMessages).length > 0 ? { dropped_messages: inspector.droppedMessages } : {}),
      ...(inspector.errorClass !== null ? { error_class: inspector.errorClass } : {}),
      ...(raw !== undefined ? { raw } : {}),
    },
  };
}
