// What a caller sees of a server's tools through the proxy. `tools/list` is forwarded without rule
// evaluation (SPEC, MCP proxy); the project setting `mcp_tools_list` says what its answer keeps:
//   admitted  (default) a listed tool stays when the gateway knows it (a scan recorded it and the
//             last scan still lists it), an Admin admitted it, and its surface as listed now has the
//             admitted fingerprint. A tool never admitted or changed since admission, even changed
//             after the last scan, is hidden: a changed description is how a poisoned tool reaches
//             the model, and no rule is involved in that. Its rule does not matter.
//   callable  also hides what this caller may never call: its effective rule (server-wide rules,
//             the agent's rules and capability model) is DENY. A tool held for approval
//             (REQUIRE_APPROVAL, or no rule) is listed: it can be called once approved.
//   upstream  the upstream's answer untouched: no view is loaded and nothing is rewritten (load.ts).
// The gates that are not rules run before any of this (handler.ts): an agent that may not act is
// refused (-32003) rather than listed to. Entries are passed on unmodified; pagination (nextCursor)
// is untouched, so a page may come back shorter than the server sent it.
import type { Rule } from '../../../shared/agent-schemas.js';
import type { CapabilityModel } from '../../agents/capability.js';
import { McpClientError } from '../client/errors.js';
import type { Framed } from '../client/framing.js';
import { DROP } from './relay-request.js';
import { effectiveRule } from '../rules/effective-rule.js';
import { parseTool, toolFingerprint } from '../client/tool-surface.js';

/** A tool of the server as the gateway recorded it, with its rules for this caller. */
export interface ListTool {
  readonly approvedHash: string | null;
  readonly present: boolean;
  readonly riskLevel: string | null;
  readonly action: string | null;
  readonly serverWide: Rule[];
  readonly agentRules: Rule[];
}

export interface ListView {
  /** The project's mcp_tools_list, where it filters at all (`upstream` has no view). */
  readonly mode: 'admitted' | 'callable';
  readonly tools: ReadonlyMap<string, ListTool>;
  readonly capability: CapabilityModel | null;
}

function listed(raw: unknown, index: number, view: ListView): boolean {
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
  if (!known?.present || known.approvedHash === null || known.approvedHash !== fingerprint) return false;
  if (view.mode === 'admitted') return true;
  const rule = effectiveRule({
    serverWide: known.serverWide,
    agentRules: known.agentRules,
    capability: view.capability ? { model: view.capability, tool: { riskLevel: known.riskLevel, action: known.action } } : null,
  });
  return rule.rule !== 'DENY';
}

/** The tools/list result with only the tools the mode lists; other result fields as they came. */
export function filterToolsResult(result: Record<string, unknown>, view: ListView): Record<string, unknown> {
  const tools = Array.isArray(result.tools) ? result.tools : [];
  return { ...result, tools: tools.filter((raw, i) => listed(raw, i, view)) };
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * A classified message of a tools/list answer stream (framing.ts): the answer's result filtered, a
 * response nothing waits for and junk dropped (a client could take them for the list), the rest unchanged.
 */
export function filterListMessage(framed: Framed, view: ListView): unknown {
  if (framed.role === 'junk' || framed.role === 'stray') return DROP;
  const message = framed.message;
  if (framed.role !== 'answer' || !isObject(message.result)) return message;
  return { ...message, result: filterToolsResult(message.result, view) };
}
