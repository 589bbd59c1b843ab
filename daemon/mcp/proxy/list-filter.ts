// What a caller sees of a server's tools through the proxy: `tools/list` is forwarded without rule
// evaluation, but its answer keeps only the tools this caller could call. A listed tool stays when
//   - the gateway knows it (a scan recorded it) and an Admin admitted it,
//   - its surface as listed now has the admitted fingerprint (a tool changed since admission, even
//     one changed after the last scan, is hidden), and
//   - its effective rule for this caller (server-wide rules, the agent's rules and capability
//     model) is not DENY.
// A tool held for approval (REQUIRE_APPROVAL, or no rule) is listed: it can be called once approved.
// A caller whose agent may not act sees no tools. Entries are passed on unmodified; pagination
// (nextCursor) is untouched, so a page may come back shorter than the server sent it.
import type { CapabilityModel } from '../../agents/capability.js';
import { McpClientError } from '../errors.js';
import { effectiveRule } from '../rules.js';
import { parseTool, toolFingerprint } from '../tool-surface.js';
import type { ListTool } from './load.js';

export interface ListView {
  /** False when the agent gate refuses the caller: nothing is callable. */
  readonly callerMayAct: boolean;
  readonly tools: ReadonlyMap<string, ListTool>;
  readonly capability: CapabilityModel | null;
}

function callable(raw: unknown, index: number, view: ListView): boolean {
  let fingerprint: string;
  let name: string;
  try {
    const tool = parseTool(raw, index);
    fingerprint = toolFingerprint(tool);
    name = tool.name;
  } catch (err) {
    if (err instanceof McpClientError) return false; // an entry the gateway cannot read is never admitted
    throw err;
  }
  const known = view.tools.get(name);
  if (!known || !known.present || known.approvedHash === null || known.approvedHash !== fingerprint) return false;
  const rule = effectiveRule({
    serverWide: known.serverWide,
    agentRules: known.agentRules,
    capability: view.capability ? { model: view.capability, tool: { riskLevel: known.riskLevel, action: known.action } } : null,
  });
  return rule.rule !== 'DENY';
}

/** The tools/list result with only the callable tools; other result fields as they came. */
export function filterToolsResult(result: Record<string, unknown>, view: ListView): Record<string, unknown> {
  const tools = Array.isArray(result.tools) ? result.tools : [];
  return { ...result, tools: view.callerMayAct ? tools.filter((raw, i) => callable(raw, i, view)) : [] };
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A JSON-RPC message that is the answer to `id` with a result: filtered; anything else unchanged. */
export function filterListMessage(message: unknown, id: string | number, view: ListView): unknown {
  if (!isObject(message) || message.id !== id || !isObject(message.result) || 'method' in message) return message;
  return { ...message, result: filterToolsResult(message.result, view) };
}
