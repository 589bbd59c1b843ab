// Which pre-aggregated counters a trace adds to (sql/00012_counters.sql). One pure function of the
// trace input, used by the ledger append, by the recount in the tests and by the benchmark's seed,
// so that the three always agree on what a counter means.
import type { TraceInput } from './streams.js';

export type CounterDim = 'total' | 'agent' | 'policy' | 'content_type';
export type Grain = 'minute' | 'hour' | 'day';

export const GRAIN_MS: Readonly<Record<Grain, number>> = { minute: 60_000, hour: 3_600_000, day: 86_400_000 };

export interface CounterKey {
  readonly dim: CounterDim;
  readonly traceType: string;
  readonly decision: string;
  /** The agent id, policy name or content type; '' for the total. */
  readonly key: string;
}

export interface CounterRow {
  readonly project_id: string;
  readonly grain: Grain;
  readonly dim: CounterDim;
  readonly bucket: string;
  readonly trace_type: string;
  readonly decision: string;
  readonly key: string;
  readonly count: number;
}

export type CountedInput = Pick<TraceInput, 'traceType' | 'decision' | 'agentId' | 'content'>;

/** Trace types that are requests through the gateway: what the plan bills and what an agent's load is. */
export const REQUEST_TYPES: readonly string[] = ['VERIFY', 'MCP_TOOL_CALL', 'EXTERNAL_EVENT'];

const KEY_MAX = 200;
const POLICIES_MAX = 32;
const CATEGORY = /^[a-z][a-z0-9_-]{0,39}$/;

function clip(text: string): string {
  return text.length <= KEY_MAX ? text : [...text].slice(0, KEY_MAX).join('');
}

function record(value: unknown): Record<string, unknown> | null {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
}

/** MCP rules that decide something (ALLOW decides nothing worth counting). */
const MCP_RULES = new Set(['DENY', 'REQUIRE_APPROVAL', 'LOG_ONLY']);

/** The key of an MCP tool rule that applied to a call: `MCP <rule>: <tool>`. */
export function mcpRuleKey(rule: string, tool: string): string {
  return clip(`MCP ${rule}: ${tool}`);
}

/**
 * The distinct names of the policies that fired: verify's content.details.policies[].policy, and
 * for an MCP tool call the tool rule that applied (content.rule, content.tool) unless it is ALLOW.
 */
export function firedPolicies(traceType: string, content: Record<string, unknown>): string[] {
  if (traceType === 'MCP_TOOL_CALL') {
    return typeof content.rule === 'string' && MCP_RULES.has(content.rule) && typeof content.tool === 'string'
      ? [mcpRuleKey(content.rule, content.tool)]
      : [];
  }
  const list = record(content.details)?.policies;
  if (!Array.isArray(list)) return [];
  const names = new Set<string>();
  for (const hit of list) {
    const name = record(hit)?.policy;
    if (typeof name === 'string' && name.trim() !== '') names.add(clip(name));
    if (names.size === POLICIES_MAX) break;
  }
  return [...names];
}

/** What a verify trace inspected: `text`, the attachments' one category, or `mixed`; null for other traces. */
export function contentTypeOfTrace(traceType: string, content: Record<string, unknown>): string | null {
  if (traceType !== 'VERIFY') return null;
  const attachments = record(content.details)?.attachments;
  if (!Array.isArray(attachments) || attachments.length === 0) return 'text';
  const categories = new Set(
    attachments.map((a) => {
      const category = record(a)?.category;
      return typeof category === 'string' && CATEGORY.test(category) ? category : 'other';
    }),
  );
  return categories.size === 1 ? [...categories][0]! : 'mixed';
}

/**
 * Every counter one trace adds 1 to: the total; for a request of an agent, the agent (decision kept
 * only as BLOCKED or '', which is all the command center asks of an agent, and keeps its rows few);
 * the policies that fired; and what a verify trace inspected.
 */
export function counterKeys(input: CountedInput): CounterKey[] {
  const keys: CounterKey[] = [{ dim: 'total', traceType: input.traceType, decision: input.decision, key: '' }];
  if (input.agentId && REQUEST_TYPES.includes(input.traceType)) {
    keys.push({ dim: 'agent', traceType: '', decision: input.decision === 'BLOCKED' ? 'BLOCKED' : '', key: clip(input.agentId) });
  }
  for (const name of firedPolicies(input.traceType, input.content))
    keys.push({ dim: 'policy', traceType: input.traceType, decision: '', key: name });
  const contentType = contentTypeOfTrace(input.traceType, input.content);
  if (contentType) keys.push({ dim: 'content_type', traceType: '', decision: '', key: contentType });
  return keys;
}

/** The UTC minute, hour or day that holds `iso`, as an ISO string. */
export function bucketOf(iso: string, grain: Grain): string {
  const step = GRAIN_MS[grain];
  const ms = Date.parse(iso);
  return new Date(ms - (((ms % step) + step) % step)).toISOString();
}

/** One distinct key of a batch and how many of its traces add to it. */
export interface CounterGroup {
  readonly dim: CounterDim;
  readonly trace_type: string;
  readonly decision: string;
  readonly key: string;
  readonly count: number;
}

/** A batch's keys, grouped: an upsert must not touch a row twice, and fewer rows cost less. */
export function groupCounts(inputs: readonly CountedInput[]): CounterGroup[] {
  const grouped = new Map<string, { dim: CounterDim; trace_type: string; decision: string; key: string; count: number }>();
  for (const input of inputs) {
    for (const k of counterKeys(input)) {
      const id = `${k.dim}\u0000${k.traceType}\u0000${k.decision}\u0000${k.key}`;
      const entry = grouped.get(id);
      if (entry) entry.count += 1;
      else grouped.set(id, { dim: k.dim, trace_type: k.traceType, decision: k.decision, key: k.key, count: 1 });
    }
  }
  return [...grouped.values()];
}

/**
 * The rows one append adds: a batch shares one created_at, so it falls into one minute, and each
 * distinct key becomes one row (hours and days are rolled up later, rollups.ts).
 */
export function counterRows(projectId: string, createdAt: string, inputs: readonly CountedInput[]): CounterRow[] {
  return groupCounts(inputs).map((g) => ({ project_id: projectId, grain: 'minute' as const, bucket: bucketOf(createdAt, 'minute'), ...g }));
}
