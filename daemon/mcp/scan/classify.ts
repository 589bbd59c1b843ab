// The scan's classifier of MCP tools: from a tool's name, title, description, input schema and
// annotations it derives action, risk level, category and a proposed rule, and says why in `reasons`.
// Pure (no I/O). Action, risk and rule use the capability model's vocabulary (shared/agent-schemas.ts).
//
// The rules, as a table, are in classify-words.ts; the evidence each part of a tool gives, in
// classify-evidence.ts. Here they are combined:
//
// Combining: the most severe action wins (read < write < delete < execute; `other` only when no
// evidence at all); the highest risk wins, and each action has a floor (read low, write medium,
// other medium, delete high, execute high). Category: the evidence of the first tier that gives one
// (name, title and schema; then the description's first sentence; then annotations), and within a
// tier the first in TOOL_CATEGORIES order. A name's verb is its first known verb word plus any known
// verb after a conjunction (and/or/then): `get_workflow_run` reads as get, `get_or_delete` as both.
//
// Annotations come from the upstream server, which we do not trust: a hint may raise the action or
// risk, never lower it. A tool named `delete_repo` that says readOnlyHint stays a delete, and a tool
// whose name and description say nothing stays `other` even if it claims readOnlyHint. Absent hints
// are not filled in with the MCP defaults (destructiveHint defaults to true there), so a tool
// without annotations is judged on its own words.
//
// proposed_rule = the stricter of the rule by action (read ALLOW; write, delete, execute, other
// REQUIRE_APPROVAL) and the rule by risk (low ALLOW, medium LOG_ONLY, high and critical
// REQUIRE_APPROVAL), with proposed_rule_source 'action'. The classifier never proposes DENY: only a
// template can (applyTemplateRule), and only by tightening.
import { RISK_LEVELS, RULES, type Rule } from '../../../shared/agent-schemas.js';
import { strictest } from '../../agents/capability.js';
import { annotationEvidence, descriptionEvidence, type Evidence, identifierEvidence, schemaEvidence } from './classify-evidence.js';
import { type RiskLevel, TOOL_CATEGORIES, type ToolAction, type ToolCategory } from './classify-words.js';

export { nameWords } from './classify-evidence.js';
export { type RiskLevel, TOOL_CATEGORIES, type ToolAction, type ToolCategory } from './classify-words.js';

export type ProposedRuleSource = 'action' | 'template';

export interface ClassifiableTool {
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  readonly inputSchema: Readonly<Record<string, unknown>>;
  readonly annotations?: Readonly<Record<string, unknown>>;
}

export interface Classification {
  readonly risk_level: RiskLevel;
  readonly category: ToolCategory;
  readonly action: ToolAction;
  readonly proposed_rule: Rule | null;
  readonly proposed_rule_source: ProposedRuleSource | null;
  readonly reasons: readonly string[];
}

const ACTION_ORDER: readonly ToolAction[] = ['other', 'read', 'write', 'delete', 'execute'];
const ACTION_RULE: Readonly<Record<ToolAction, Rule>> = {
  read: 'ALLOW',
  write: 'REQUIRE_APPROVAL',
  delete: 'REQUIRE_APPROVAL',
  execute: 'REQUIRE_APPROVAL',
  other: 'REQUIRE_APPROVAL',
};
const RISK_RULE: Readonly<Record<RiskLevel, Rule>> = {
  low: 'ALLOW',
  medium: 'LOG_ONLY',
  high: 'REQUIRE_APPROVAL',
  critical: 'REQUIRE_APPROVAL',
};
const ACTION_FLOOR: Readonly<Record<ToolAction, RiskLevel>> = {
  read: 'low',
  write: 'medium',
  other: 'medium',
  delete: 'high',
  execute: 'high',
};

const maxRisk = (a: RiskLevel, b: RiskLevel): RiskLevel => (RISK_LEVELS.indexOf(a) >= RISK_LEVELS.indexOf(b) ? a : b);
const maxAction = (a: ToolAction, b: ToolAction): ToolAction => (ACTION_ORDER.indexOf(a) >= ACTION_ORDER.indexOf(b) ? a : b);

function pickCategory(evidence: readonly Evidence[]): ToolCategory {
  for (const tiers of [[1, 2], [3], [4]]) {
    const found = evidence.filter((e) => tiers.includes(e.tier) && e.category).map((e) => TOOL_CATEGORIES.indexOf(e.category!));
    if (found.length > 0) return TOOL_CATEGORIES[Math.min(...found)]!;
  }
  return 'general';
}

/** Notes on hints that would have lowered the result, so an operator sees they were not trusted. */
function ignoredHints(
  annotations: Readonly<Record<string, unknown>> | undefined,
  action: ToolAction,
  risk: RiskLevel,
  category: ToolCategory,
): string[] {
  if (!annotations) return [];
  const out: string[] = [];
  if (annotations.readOnlyHint === true && action !== 'read')
    out.push(`annotations.readOnlyHint true not trusted: action stays ${action} (hints never lower)`);
  if (annotations.destructiveHint === false && (action === 'delete' || action === 'execute'))
    out.push(`annotations.destructiveHint false not trusted: action stays ${action}, risk ${risk}`);
  if (annotations.idempotentHint === true && action !== 'read') out.push('annotations.idempotentHint true noted: it lowers nothing');
  if (annotations.openWorldHint === false && category === 'network')
    out.push(`annotations.openWorldHint false not trusted: risk stays ${risk}`);
  return out;
}

export function classifyTool(tool: ClassifiableTool): Classification & { readonly proposed_rule_source: 'action' | null } {
  const schema = schemaEvidence(tool.inputSchema);
  const evidence: Evidence[] = [
    ...identifierEvidence('name', tool.name),
    ...(typeof tool.title === 'string' ? identifierEvidence('title', tool.title) : []),
    ...schema.evidence,
    ...(typeof tool.description === 'string' ? descriptionEvidence(tool.description) : []),
    ...annotationEvidence(tool.annotations),
  ];
  let action: ToolAction = 'other';
  for (const e of evidence) if (e.action) action = maxAction(action, e.action);
  if (schema.codeParam && action === 'execute') {
    evidence.push({
      risk: 'critical',
      category: 'code_execution',
      tier: 2,
      reason: `parameter "${schema.codeParam}" takes code to execute: risk critical`,
    });
  }
  let risk: RiskLevel = ACTION_FLOOR[action];
  for (const e of evidence) {
    const r = action === 'read' && e.readRisk ? e.readRisk : e.risk;
    if (r) risk = maxRisk(risk, r);
  }
  const reasons = evidence.map((e) => e.reason);
  if (action === 'other') reasons.push('no verb or capability recognised: action other, risk medium');
  const category = pickCategory(evidence);
  reasons.push(...ignoredHints(tool.annotations, action, risk, category));
  const rule = strictest(ACTION_RULE[action], RISK_RULE[risk]);
  reasons.push(`proposed ${rule}: ${ACTION_RULE[action]} for action ${action}, ${RISK_RULE[risk]} for risk ${risk}, the stricter wins`);
  return { risk_level: risk, category, action, proposed_rule: rule, proposed_rule_source: 'action', reasons };
}

/**
 * A template's rule applied to a classification: it can only tighten the proposal. A stricter
 * template rule replaces it and the source becomes 'template' (the only way to a DENY proposal); an
 * equal or looser one leaves it as it was. A classification with no proposal (the tool is not
 * waiting) gets none.
 */
export function applyTemplateRule(classification: Classification, templateRule: Rule): Classification {
  if (!RULES.includes(templateRule)) throw new TypeError(`template rule ${JSON.stringify(templateRule)} is not one of ${RULES.join(', ')}`);
  const current = classification.proposed_rule;
  if (current === null) return classification;
  if (RULES.indexOf(templateRule) <= RULES.indexOf(current)) {
    return {
      ...classification,
      reasons: [...classification.reasons, `template rule ${templateRule} is not stricter than ${current}: proposal kept`],
    };
  }
  return {
    ...classification,
    proposed_rule: templateRule,
    proposed_rule_source: 'template',
    reasons: [
      ...classification.reasons,
      `template rule ${templateRule} is stricter than ${current}: proposal ${templateRule} (source template)`,
    ],
  };
}
