// The words and patterns the MCP tool classifier (classify.ts) looks for, and what each says.
// Pure data (no I/O). Action, risk and rule use the capability model's vocabulary (shared/agent-schemas.ts).
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
import type { RISK_LEVELS, TOOL_ACTIONS } from '../../../shared/agent-schemas.js';

export type ToolAction = (typeof TOOL_ACTIONS)[number];
export type RiskLevel = (typeof RISK_LEVELS)[number];

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

export type VerbClass = 'read' | 'write' | 'publish' | 'permission' | 'delete' | 'execute' | 'payment';
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
export const VERBS = wordTable(VERB_WORDS) as ReadonlyMap<string, VerbClass>;

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
export const CATEGORIES = wordTable(CATEGORY_WORDS) as ReadonlyMap<string, ToolCategory>;

export const SECRET_NAME_WORDS = new Set([
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
export const CONJUNCTIONS = new Set(['and', 'or', 'then', 'plus', 'also']);

// Parameter names are compared lower-cased with separators removed (command_line -> commandline).
export const SHELL_PARAMS = new Set([
  'command',
  'cmd',
  'commands',
  'commandline',
  'shellcommand',
  'script',
  'shell',
  'bash',
  'powershell',
  'sh',
]);
export const SQL_PARAMS = new Set(['sql', 'sqlquery', 'rawsql', 'sqlstatement']);
export const CODE_PARAMS = new Set(['code', 'sourcecode', 'program', 'snippet', 'python', 'javascript', 'js']);
export const URL_PARAMS = new Set(['endpoint', 'webhook', 'callback', 'href', 'website']);
export const PATH_PARAMS = new Set(['file', 'files', 'filename', 'directory', 'dir', 'folder']);
export const PAYMENT_PARAMS = new Set(['iban', 'cardnumber', 'accountnumber', 'routingnumber', 'bic', 'swift']);
export const REPO_PARAMS = new Set(['repo', 'repository', 'reponame', 'branch', 'commitsha', 'pullnumber', 'prnumber']);

// Description phrases (global, for matchAll); the text is lower-cased and whitespace-collapsed first.
export const DESCRIPTION_RULES: ReadonlyArray<{
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
export const DESTRUCTIVE_ANYWHERE =
  /\b(?:delete|deletes|drop|drops|destroy|destroys|purge|purges|erase|erases|wipe|wipes|truncate|truncates)\b(?!-?down)/g;
export const NEGATION_BEFORE = /\b(?:not|never|no|without|cannot|can't|won't|doesn't|don't|isn't)\b[^.;!?]{0,24}$/;
// Lead-ins stripped before taking the description's first verb ("Use this tool to delete ...").
export const LEAD_IN =
  /^(?:(?:this|the) (?:tool|function|endpoint|operation|command) (?:will |can |lets you |allows you to |is used to |helps (?:you )?(?:to )?)?|(?:a )?(?:tool|function) (?:to|that|for|which) |use (?:this|it) (?:tool )?to |used to |allows? (?:you |the (?:user|model|agent) )?to |lets? (?:you )?|helps? (?:you )?(?:to )?|can be used to |you can )/;
