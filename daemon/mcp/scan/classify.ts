// The scan's classifier of MCP tools: from a tool's name, title, description, input schema and
// annotations it derives action, risk level, category and a proposed rule, and says why in `reasons`.
// Pure (no I/O). Action, risk and rule use the capability model's vocabulary (shared/agent-schemas.ts).
//
// THE RULES (this table is the documentation; the data below is the table)
//
// | evidence                                              | looked at                          | action ≥ | risk ≥   | category       |
// |-------------------------------------------------------|------------------------------------|----------|----------|----------------|
// | read verb: get list read search find fetch show ...   | name/title words, description's    | read     | low      |                |
// | write verb: create add update edit set move toggle ...| first verb (see VERB_WORDS)        | write    | medium   |                |
// | publish verb: send post publish email merge push ...  |   "                                | write    | high     |                |
// | permission verb: grant revoke                         |   "                                | write    | high     | identity       |
// | delete verb: delete remove drop destroy purge wipe ...|   "                                | delete   | high     |                |
// | execute verb: exec execute run eval spawn deploy ...  |   "                                | execute  | high     |                |
// | payment verb: pay transfer charge refund payout ...   |   "                                | write    | critical | payments       |
// | destructive verb anywhere in the description          | description, unless negated nearby | delete   | high     |                |
// | "arbitrary command/code", "shell command", ...        | description                        | execute  | critical | code_execution |
// | "permanently", "irreversible", "cannot be undone"     | description                        |          | high     |                |
// | command / cmd / script / shell / bash parameter       | property names, any depth          | execute  | critical | code_execution |
// | sql parameter                                         | property names                     | execute  | high     | database       |
// | code / program / snippet parameter + execute action   | property names                     |          | critical | code_execution |
// | *url / *uri / endpoint / webhook parameter, uri format| property names, string formats     |          | medium   | network        |
// | *path / file / directory parameter                    | property names                     |          |          | filesystem     |
// | repo / repository / branch / pull_number parameter    | property names                     |          |          | source_control |
// | iban / card_number / account_number, amount+currency  | property names                     |          | (a)      | payments       |
// | payment wording: payment, transfer funds, refund ...  | description                        |          | (a)      | payments       |
// | secret word: env secret credential password vault     | name/title words                   |          | high     | secrets        |
// | "environment variables", "credentials", "secrets" ... | description                        |          | medium   | secrets        |
// | annotations.destructiveHint = true                    | annotations                        | write    | high     |                |
// | annotations.readOnlyHint = false                      | annotations                        | write    |          |                |
// | annotations.openWorldHint = true                      | annotations                        |          | medium   | network (b)    |
// | readOnlyHint true, destructiveHint false, idempotent- | annotations                        | never lowers anything; noted in reasons |
// |   Hint, openWorldHint false                           |                                    |          |          |                |
// | category word: file, repo, slack, sql, user, url ...  | name/title words, then the first   |          |          | (CATEGORY_WORDS)|
// |                                                       | sentence of the description        |          |          |                |
// | nothing above matched                                 |                                    | other    | medium   | general        |
//
// (a) critical when the action is not read, medium for a read (financial data).
// (b) only when no name, schema or description evidence gave a category.
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
import { RISK_LEVELS, RULES, type TOOL_ACTIONS, type Rule } from '../../../shared/agent-schemas.js';
import { strictest } from '../../agents/capability.js';

export type ToolAction = (typeof TOOL_ACTIONS)[number];
export type RiskLevel = (typeof RISK_LEVELS)[number];
export type ProposedRuleSource = 'action' | 'template';

/** Categories in priority order: when one tier of evidence names several, the first wins. */
export const TOOL_CATEGORIES = [
  'payments',
  'code_execution',
  'secrets',
  'identity',
  'database',
  'source_control',
  'filesystem',
  'messaging',
  'network',
  'general',
] as const;
export type ToolCategory = (typeof TOOL_CATEGORIES)[number];

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

// ---- data ----

type VerbClass = 'read' | 'write' | 'publish' | 'permission' | 'delete' | 'execute' | 'payment';
interface VerbEffect {
  readonly action: Exclude<ToolAction, 'other'>;
  readonly risk: RiskLevel;
  readonly category?: ToolCategory;
}

export const VERB_EFFECTS: Readonly<Record<VerbClass, VerbEffect>> = {
  read: { action: 'read', risk: 'low' },
  write: { action: 'write', risk: 'medium' },
  publish: { action: 'write', risk: 'high' },
  permission: { action: 'write', risk: 'high', category: 'identity' },
  delete: { action: 'delete', risk: 'high' },
  execute: { action: 'execute', risk: 'high' },
  payment: { action: 'write', risk: 'critical', category: 'payments' },
};

const VERB_WORDS: Readonly<Record<VerbClass, string>> = {
  read: `get list read search find fetch query show describe view lookup count check inspect browse retrieve download echo
    print summarize validate preview explain diff compare ping analyze calculate compute convert render parse translate format
    generate estimate resolve peek watch poll sum compress decompress gzip zip unzip encode decode hash simulate return
    extract scan`,
  write: `create add update edit set write put patch modify rename move copy upload save insert append replace toggle enable
    disable assign unassign comment reply star unstar fork close reopen commit tag label schedule register subscribe
    unsubscribe approve lock unlock archive unarchive sync import mark react pin unpin trigger start stop restore revert
    rollback cancel scale configure apply upsert increment decrement submit request make build init initialize attach detach
    link complete`,
  publish: `send post publish email notify share invite merge push broadcast tweet announce overwrite release dm forward`,
  permission: `grant revoke ban kick promote demote impersonate`,
  delete: `delete remove drop destroy purge erase wipe truncate unlink rm rmdir clear reset kill terminate uninstall discard
    evict flush`,
  execute: `exec execute run eval evaluate invoke spawn launch deploy install shell bash sh script reboot shutdown restart
    compile`,
  payment: `pay transfer charge refund payout withdraw purchase buy sell trade wire`,
};

function wordTable(table: Readonly<Record<string, string>>): ReadonlyMap<string, string> {
  const map = new Map<string, string>();
  for (const [key, words] of Object.entries(table)) for (const w of words.split(/\s+/)) if (w !== '' && !map.has(w)) map.set(w, key);
  return map;
}
const VERBS = wordTable(VERB_WORDS) as ReadonlyMap<string, VerbClass>;

const CATEGORY_WORDS: Readonly<Partial<Record<ToolCategory, string>>> = {
  payments:
    'pay payment payments transfer transfers charge refund refunds invoice invoices payout payouts wallet stripe billing transaction transactions',
  code_execution: 'shell bash command commands exec execute terminal script scripts eval python sandbox repl',
  secrets: 'secret secrets credential credentials password passwords env vault apikey keychain',
  identity: 'user users role roles permission permissions member members group groups acl iam grant revoke',
  database: 'sql database databases db table tables row rows record records collection collections postgres mysql sqlite',
  source_control: 'repo repos repository repositories branch branches commit commits pull pr issue issues git github gitlab gist merge',
  filesystem: 'file files directory directories dir folder folders path fs filesystem',
  messaging: 'message messages email emails mail slack channel channels chat sms notification notifications dm inbox',
  network: 'url http https fetch web browse browser webhook webhooks download website scrape crawl',
};
const CATEGORIES = wordTable(CATEGORY_WORDS) as ReadonlyMap<string, ToolCategory>;

const SECRET_NAME_WORDS = new Set([
  'env',
  'secret',
  'secrets',
  'credential',
  'credentials',
  'password',
  'passwords',
  'vault',
  'apikey',
  'keychain',
]);
const CONJUNCTIONS = new Set(['and', 'or', 'then', 'plus', 'also']);

// Parameter names are compared lower-cased with separators removed (command_line -> commandline).
const SHELL_PARAMS = new Set(['command', 'cmd', 'commands', 'commandline', 'shellcommand', 'script', 'shell', 'bash', 'powershell', 'sh']);
const SQL_PARAMS = new Set(['sql', 'sqlquery', 'rawsql', 'sqlstatement']);
const CODE_PARAMS = new Set(['code', 'sourcecode', 'program', 'snippet', 'python', 'javascript', 'js']);
const URL_PARAMS = new Set(['endpoint', 'webhook', 'callback', 'href', 'website']);
const PATH_PARAMS = new Set(['file', 'files', 'filename', 'directory', 'dir', 'folder']);
const PAYMENT_PARAMS = new Set(['iban', 'cardnumber', 'accountnumber', 'routingnumber', 'bic', 'swift']);
const REPO_PARAMS = new Set(['repo', 'repository', 'reponame', 'branch', 'commitsha', 'pullnumber', 'prnumber']);

// Description phrases (global, for matchAll); the text is lower-cased and whitespace-collapsed first.
const DESCRIPTION_RULES: ReadonlyArray<{
  id: string;
  pattern: RegExp;
  action?: ToolAction;
  risk?: RiskLevel;
  category?: ToolCategory;
  readRisk?: RiskLevel;
}> = [
  {
    id: 'arbitrary execution',
    action: 'execute',
    risk: 'critical',
    category: 'code_execution',
    pattern:
      /\barbitrary (?:shell |system |terminal |os )?(?:commands?|code|scripts?|programs?)\b|\bany (?:shell|system|terminal|os) commands?\b|\b(?:shell|terminal|bash) commands?\b|\bexecut(?:e|es|ing) (?:a |an |the |any |arbitrary )?(?:python |javascript |js |shell |bash )?(?:code|commands?|scripts?)\b/g,
  },
  {
    id: 'irreversible',
    risk: 'high',
    pattern: /\b(?:permanently|irreversibl[ey]|unrecoverabl[ey]|(?:cannot|can't|can not) be (?:undone|reversed|recovered))\b/g,
  },
  {
    id: 'payment',
    risk: 'critical',
    readRisk: 'medium',
    category: 'payments',
    pattern:
      /\b(?:payments?|transfers? (?:of )?(?:funds|money)|transfer(?:s|ring)? (?:funds|money)|send(?:s|ing)? money|wire transfers?|refunds?|payouts?|charges? (?:a |the )?(?:card|customer|account))\b/g,
  },
  {
    id: 'secrets',
    risk: 'medium',
    category: 'secrets',
    pattern: /\b(?:environment variables|secrets?|credentials?|passwords?|private keys?)\b/g,
  },
];
// Destructive verbs counted anywhere in the description (other verbs only as its first word).
const DESTRUCTIVE_ANYWHERE =
  /\b(?:delete|deletes|drop|drops|destroy|destroys|purge|purges|erase|erases|wipe|wipes|truncate|truncates)\b(?!-?down)/g;
const NEGATION_BEFORE = /\b(?:not|never|no|without|cannot|can't|won't|doesn't|don't|isn't)\b[^.;!?]{0,24}$/;
// Lead-ins stripped before taking the description's first verb ("Use this tool to delete ...").
const LEAD_IN =
  /^(?:(?:this|the) (?:tool|function|endpoint|operation|command) (?:will |can |lets you |allows you to |is used to |helps (?:you )?(?:to )?)?|(?:a )?(?:tool|function) (?:to|that|for|which) |use (?:this|it) (?:tool )?to |used to |allows? (?:you |the (?:user|model|agent) )?to |lets? (?:you )?|helps? (?:you )?(?:to )?|can be used to |you can )/;

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

const SCHEMA_MAX_DEPTH = 32;
const SCHEMA_MAX_NODES = 5000;
const DESCRIPTION_MAX_CHARS = 20_000;

// ---- evidence ----

/** One piece of evidence; tier says how direct it is (1 name/title, 2 schema, 3 description, 4 annotations). */
interface Evidence {
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

function identifierEvidence(label: 'name' | 'title', text: string): Evidence[] {
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

function descriptionEvidence(raw: string): Evidence[] {
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

function schemaEvidence(schema: unknown): { evidence: Evidence[]; codeParam: string | null } {
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
function annotationEvidence(annotations: Readonly<Record<string, unknown>> | undefined): Evidence[] {
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

// ---- combining ----

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
