// Evidence from each part of an MCP tool (name and title words, input schema, description,
// annotations) for the classifier (classify.ts): what it suggests and why, one reason each.
// Bounded: deep or huge schemas and long descriptions are cut, never walked whole.
import {
  CATEGORIES,
  CODE_PARAMS,
  CONJUNCTIONS,
  DESCRIPTION_RULES,
  DESTRUCTIVE_ANYWHERE,
  LEAD_IN,
  NEGATION_BEFORE,
  PATH_PARAMS,
  PAYMENT_PARAMS,
  REPO_PARAMS,
  type RiskLevel,
  SECRET_NAME_WORDS,
  SHELL_PARAMS,
  SQL_PARAMS,
  type ToolAction,
  type ToolCategory,
  URL_PARAMS,
  VERB_EFFECTS,
  type VerbClass,
  VERBS,
} from './classify-words.js';

const SCHEMA_MAX_DEPTH = 32;
const SCHEMA_MAX_NODES = 5000;
const DESCRIPTION_MAX_CHARS = 20_000;

/** One piece of evidence; tier says how direct it is (1 name/title, 2 schema, 3 description, 4 annotations). */
export interface Evidence {
  action?: ToolAction;
  risk?: RiskLevel;
  category?: ToolCategory;
  readRisk?: RiskLevel;
  tier: 1 | 2 | 3 | 4;
  reason: string;
}

/** Words of an identifier: snake, kebab, dotted, camelCase and PascalCase all split, lower-cased. */
export function nameWords(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w !== '');
}

function verbEvidence(word: string, verb: VerbClass, tier: 1 | 3, where: string): Evidence {
  const e = VERB_EFFECTS[verb];
  const parts = [`action ${e.action}`, `risk ${e.risk}`, ...(e.category ? [`category ${e.category}`] : [])];
  return {
    action: e.action,
    risk: e.risk,
    ...(e.category ? { category: e.category } : {}),
    tier,
    reason: `${where} verb "${word}" (${verb}): ${parts.join(', ')}`,
  };
}

export function identifierEvidence(label: 'name' | 'title', text: string): Evidence[] {
  const words = nameWords(text);
  const out: Evidence[] = [];
  let seenVerb = false;
  words.forEach((w, i) => {
    const verb = VERBS.get(w);
    if (verb && (!seenVerb || CONJUNCTIONS.has(words[i - 1] ?? ''))) {
      out.push(verbEvidence(w, verb, 1, label));
      seenVerb = true;
    }
    const category = CATEGORIES.get(w);
    if (category && !SECRET_NAME_WORDS.has(w)) out.push({ category, tier: 1, reason: `${label} word "${w}": category ${category}` });
    if (SECRET_NAME_WORDS.has(w))
      out.push({ risk: 'high', category: 'secrets', tier: 1, reason: `${label} word "${w}" names secrets: risk high` });
  });
  return out;
}

/** Base forms of a description's first word: "Deletes" -> delete, "Queries" -> query, "Echoes" -> echo. */
function baseForms(word: string): string[] {
  const forms = [word];
  if (word.endsWith('ies')) forms.push(`${word.slice(0, -3)}y`);
  if (word.endsWith('es')) forms.push(word.slice(0, -2));
  if (word.endsWith('s')) forms.push(word.slice(0, -1));
  return forms;
}

/** The first match of a global pattern that no negation ("does not", "never") shortly precedes. */
function notNegated(text: string, pattern: RegExp): string | null {
  for (const m of text.matchAll(pattern)) {
    if (!NEGATION_BEFORE.test(text.slice(Math.max(0, m.index - 40), m.index))) return m[0];
  }
  return null;
}

export function descriptionEvidence(raw: string): Evidence[] {
  const text = raw.slice(0, DESCRIPTION_MAX_CHARS).toLowerCase().replace(/\s+/g, ' ').trim();
  const out: Evidence[] = [];
  let lead = text;
  for (let i = 0; i < 2; i++) lead = lead.replace(LEAD_IN, '');
  const first = /^[a-z]+/.exec(lead)?.[0];
  if (first) {
    const form = baseForms(first).find((f) => VERBS.has(f));
    if (form) out.push(verbEvidence(first, VERBS.get(form)!, 3, 'description'));
  }
  const destructive = out[0]?.action === 'delete' ? null : notNegated(text, DESTRUCTIVE_ANYWHERE);
  if (destructive)
    out.push({ action: 'delete', risk: 'high', tier: 3, reason: `description says "${destructive}": action delete, risk high` });
  for (const rule of DESCRIPTION_RULES) {
    const m = notNegated(text, rule.pattern);
    if (!m) continue;
    out.push({
      ...(rule.action ? { action: rule.action } : {}),
      ...(rule.risk ? { risk: rule.risk } : {}),
      ...(rule.category ? { category: rule.category } : {}),
      ...(rule.readRisk ? { readRisk: rule.readRisk } : {}),
      tier: 3,
      reason: `description says "${m}" (${rule.id})`,
    });
  }
  // Category words only from the first sentence: later ones are usually asides ("... for the user").
  for (const w of new Set(
    text
      .split(/[.!?\n]/, 1)[0]!
      .slice(0, 300)
      .split(/[^a-z0-9]+/),
  )) {
    const category = CATEGORIES.get(w);
    if (category) out.push({ category, tier: 3, reason: `description word "${w}": category ${category}` });
  }
  return out;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Property names (normalised) and whether any string is declared with a URI format, bounded in depth and size. */
function schemaFacts(schema: unknown): { names: Set<string>; uriFormat: boolean } {
  const names = new Set<string>();
  let uriFormat = false;
  let nodes = 0;
  const stack: Array<{ node: unknown; depth: number }> = [{ node: schema, depth: 0 }];
  while (stack.length > 0 && nodes < SCHEMA_MAX_NODES) {
    const { node, depth } = stack.pop()!;
    nodes += 1;
    if (depth > SCHEMA_MAX_DEPTH || typeof node !== 'object' || node === null) continue;
    if (Array.isArray(node)) {
      for (const v of node) stack.push({ node: v, depth: depth + 1 });
      continue;
    }
    const format = (node as Record<string, unknown>).format;
    if (typeof format === 'string' && /^(?:uri|url|iri|uri-reference|iri-reference|uri-template)$/.test(format)) uriFormat = true;
    for (const [key, value] of Object.entries(node)) {
      if ((key === 'properties' || key === 'patternProperties') && isObject(value)) {
        for (const p of Object.keys(value)) names.add(p.toLowerCase().replace(/[^a-z0-9]/g, ''));
      }
      if (key !== 'default' && key !== 'const' && key !== 'examples' && key !== 'enum') stack.push({ node: value, depth: depth + 1 });
    }
  }
  return { names, uriFormat };
}

export function schemaEvidence(schema: unknown): { evidence: Evidence[]; codeParam: string | null } {
  const { names, uriFormat } = schemaFacts(schema);
  const out: Evidence[] = [];
  let codeParam: string | null = null;
  for (const n of names) {
    if (SHELL_PARAMS.has(n))
      out.push({
        action: 'execute',
        risk: 'critical',
        category: 'code_execution',
        tier: 2,
        reason: `parameter "${n}" takes a command: action execute, risk critical`,
      });
    else if (SQL_PARAMS.has(n))
      out.push({
        action: 'execute',
        risk: 'high',
        category: 'database',
        tier: 2,
        reason: `parameter "${n}" takes SQL: action execute, risk high`,
      });
    else if (CODE_PARAMS.has(n)) codeParam ??= n;
    else if (URL_PARAMS.has(n) || n.endsWith('url') || n.endsWith('uri'))
      out.push({ risk: 'medium', category: 'network', tier: 2, reason: `parameter "${n}" takes an address: risk medium` });
    else if (PATH_PARAMS.has(n) || n.endsWith('path'))
      out.push({ category: 'filesystem', tier: 2, reason: `parameter "${n}" takes a path: category filesystem` });
    else if (REPO_PARAMS.has(n))
      out.push({ category: 'source_control', tier: 2, reason: `parameter "${n}" names a repository: category source_control` });
    else if (PAYMENT_PARAMS.has(n))
      out.push({ risk: 'critical', readRisk: 'medium', category: 'payments', tier: 2, reason: `parameter "${n}" is a payment detail` });
  }
  if (names.has('amount') && names.has('currency'))
    out.push({
      risk: 'critical',
      readRisk: 'medium',
      category: 'payments',
      tier: 2,
      reason: 'parameters "amount" and "currency": a payment',
    });
  if (uriFormat) out.push({ risk: 'medium', category: 'network', tier: 2, reason: 'a string parameter has a URI format: risk medium' });
  return { evidence: out, codeParam };
}

/** Hints raise, never lower; a hint that is not a boolean is ignored. */
export function annotationEvidence(annotations: Readonly<Record<string, unknown>> | undefined): Evidence[] {
  if (!annotations) return [];
  const out: Evidence[] = [];
  const hint = (k: string): boolean | undefined => (typeof annotations[k] === 'boolean' ? (annotations[k] as boolean) : undefined);
  if (hint('destructiveHint') === true)
    out.push({ action: 'write', risk: 'high', tier: 4, reason: 'annotations.destructiveHint true: action at least write, risk high' });
  if (hint('readOnlyHint') === false)
    out.push({ action: 'write', tier: 4, reason: 'annotations.readOnlyHint false: action at least write' });
  if (hint('openWorldHint') === true)
    out.push({ risk: 'medium', category: 'network', tier: 4, reason: 'annotations.openWorldHint true: risk at least medium' });
  for (const k of ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint']) {
    if (k in annotations && hint(k) === undefined) out.push({ tier: 4, reason: `annotations.${k} is not a boolean: ignored` });
  }
  return out;
}
