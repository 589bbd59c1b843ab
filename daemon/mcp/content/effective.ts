// Which content policy applies to one call, per detector: the tool's own (server and tool name),
// else the server's, else the project's, else the built-in default (shared/mcp-content-schemas.ts).
// The most specific policy wins whether it tightens or loosens: an Admin set it for exactly this.
import {
  CONTENT_DEFAULTS,
  CONTENT_DETECTORS,
  type ContentAction,
  type ContentDetector,
  type ContentDirection,
  type ContentPolicy,
} from '../../../shared/mcp-content-schemas.js';
import { DETECTORS } from '../../detectors/index.js';

/** A policy with its configuration parsed once by its detector (undefined: it no longer parses). */
export interface LoadedContentPolicy extends ContentPolicy {
  readonly parsedConfig: unknown;
}

export function loadedContentPolicy(p: ContentPolicy): LoadedContentPolicy {
  let parsedConfig: unknown;
  try {
    parsedConfig = DETECTORS[p.detector]!.parseConfig(p.config);
  } catch {
    parsedConfig = undefined; // inspection fails closed on it, naming the policy
  }
  return { ...p, parsedConfig };
}

export interface ContentRule {
  readonly detector: ContentDetector;
  readonly action: Exclude<ContentAction, 'OFF'>;
  /** The detector's parsed configuration; undefined when the stored one no longer parses. */
  readonly config: unknown;
  /** The policy that set it; null for the built-in default. */
  readonly policyId: string | null;
  /** The configuration as stored, which an inspection worker parses again (a parsed one may not cross threads). */
  readonly source?: unknown;
}

const DEFAULT_CONFIGS: Readonly<Record<ContentDetector, unknown>> = Object.freeze(
  Object.fromEntries(CONTENT_DETECTORS.map((d) => [d, DETECTORS[d]!.parseConfig({})])) as Record<ContentDetector, unknown>,
);

// The rules chosen for one (direction, server, tool) out of one loaded list of policies, kept with
// that list: the state cache hands out the same list until a policy changes (then a new one), so a
// call's three choices (arguments twice, results once) are made once per list, not per call. Tool
// names come from callers: past CHOSEN_MAX choices the list's entries start again.
const CHOSEN_MAX = 1000;
const chosen = new WeakMap<readonly LoadedContentPolicy[], Map<string, readonly ContentRule[]>>();

/** The detectors that run on this call's `direction`, each with its action; OFF ones are left out. */
export function contentRules(
  policies: readonly LoadedContentPolicy[],
  serverId: string,
  toolName: string | null,
  direction: ContentDirection,
): readonly ContentRule[] {
  let byCall = chosen.get(policies);
  if (byCall === undefined) chosen.set(policies, (byCall = new Map()));
  const key = `${direction}\u0000${serverId}${toolName === null ? '' : `\u0000${toolName}`}`;
  let rules = byCall.get(key);
  if (rules === undefined) {
    rules = Object.freeze(chooseRules(policies, serverId, toolName, direction));
    if (byCall.size >= CHOSEN_MAX) byCall.clear();
    byCall.set(key, rules);
  }
  return rules;
}

function chooseRules(
  policies: readonly LoadedContentPolicy[],
  serverId: string,
  toolName: string | null,
  direction: ContentDirection,
): ContentRule[] {
  const rules: ContentRule[] = [];
  for (const detector of CONTENT_DETECTORS) {
    const mine = policies.filter((p) => p.direction === direction && p.detector === detector);
    const chosen =
      (toolName !== null ? mine.find((p) => p.server_id === serverId && p.tool_name === toolName) : undefined)
      ?? mine.find((p) => p.server_id === serverId && p.tool_name === null)
      ?? mine.find((p) => p.server_id === null);
    const action = chosen?.action ?? CONTENT_DEFAULTS[direction][detector];
    if (action === 'OFF') continue;
    rules.push({
      detector,
      action,
      config: chosen ? chosen.parsedConfig : DEFAULT_CONFIGS[detector],
      policyId: chosen?.id ?? null,
      source: chosen ? chosen.config : {},
    });
  }
  return rules;
}
