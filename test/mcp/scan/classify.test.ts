import t from 'tap';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { capabilityRule, PROFILE_MODELS, strictest } from '../../../daemon/agents/capability.js';
import {
  applyTemplateRule,
  classifyTool,
  nameWords,
  TOOL_CATEGORIES,
  type ClassifiableTool,
  type Classification,
} from '../../../daemon/mcp/scan/classify.js';
import { RISK_LEVELS, RULES, TOOL_ACTIONS, type Rule } from '../../../shared/agent-schemas.js';

const props = (...names: string[]): Record<string, unknown> => ({
  type: 'object',
  properties: Object.fromEntries(names.map((n) => [n, { type: 'string' }])),
});
const tool = (
  name: string,
  description?: string,
  inputSchema: Record<string, unknown> = { type: 'object' },
  annotations?: Record<string, unknown>,
): ClassifiableTool => ({
  name,
  inputSchema,
  ...(description !== undefined ? { description } : {}),
  ...(annotations ? { annotations } : {}),
});
const brief = (c: Classification): string => `${c.action}/${c.risk_level}/${c.category}/${c.proposed_rule}`;

// Tools in the style of the filesystem, GitHub, Slack, database and payment servers people run.
const CORPUS: ReadonlyArray<[ClassifiableTool, string]> = [
  [tool('read_file', 'Read the complete contents of a file from the file system.', props('path')), 'read/low/filesystem/ALLOW'],
  [
    tool('list_directory', 'Get a detailed listing of all files and directories in a specified path.', props('path')),
    'read/low/filesystem/ALLOW',
  ],
  [tool('search_repositories', 'Search for GitHub repositories', props('query', 'page')), 'read/low/source_control/ALLOW'],
  [
    tool('get_file_contents', 'Get the contents of a file or directory from a GitHub repository', props('owner', 'repo', 'path', 'branch')),
    'read/low/source_control/ALLOW',
  ],
  [
    tool('create_issue', 'Create a new issue in a GitHub repository', props('owner', 'repo', 'title', 'body')),
    'write/medium/source_control/REQUIRE_APPROVAL',
  ],
  [
    tool(
      'create_or_update_file',
      'Create or update a single file in a GitHub repository',
      props('owner', 'repo', 'path', 'content', 'message'),
    ),
    'write/medium/source_control/REQUIRE_APPROVAL',
  ],
  [tool('merge_pull_request', 'Merge a pull request', props('owner', 'repo', 'pull_number')), 'write/high/source_control/REQUIRE_APPROVAL'],
  [
    tool('slack_post_message', 'Post a new message to a Slack channel', props('channel_id', 'text')),
    'write/high/messaging/REQUIRE_APPROVAL',
  ],
  [
    tool('slack_list_channels', 'List public channels in the workspace with pagination', props('limit', 'cursor')),
    'read/low/messaging/ALLOW',
  ],
  [tool('send_email', 'Sends an email to the given recipients.', props('to', 'subject', 'body')), 'write/high/messaging/REQUIRE_APPROVAL'],
  [tool('grant_role', 'Grants a role to a member of the organisation.', props('member', 'role')), 'write/high/identity/REQUIRE_APPROVAL'],
  [tool('delete_file', 'Delete a file.', props('path')), 'delete/high/filesystem/REQUIRE_APPROVAL'],
  [tool('drop_table', 'Drops a table from the database.', props('table')), 'delete/high/database/REQUIRE_APPROVAL'],
  [tool('run_tests', 'Runs the project test suite.'), 'execute/high/general/REQUIRE_APPROVAL'],
  [tool('deploy_service', 'Deploys the service to production.', props('service')), 'execute/high/general/REQUIRE_APPROVAL'],
  [
    tool('transfer_funds', 'Moves money between two accounts.', props('amount', 'currency', 'iban')),
    'write/critical/payments/REQUIRE_APPROVAL',
  ],
  [tool('pay_invoice', 'Pays an open invoice.', props('invoice_id')), 'write/critical/payments/REQUIRE_APPROVAL'],
  [
    tool('fetch', 'Fetches a URL from the internet and extracts its contents as markdown.', props('url', 'max_length')),
    'read/medium/network/LOG_ONLY',
  ],
  [tool('terminal', 'A terminal.', props('command')), 'execute/critical/code_execution/REQUIRE_APPROVAL'],
  [tool('query', 'Run a read-only SQL query', props('sql')), 'execute/high/database/REQUIRE_APPROVAL'],
  [tool('weather', 'Weather for a city.', props('city')), 'other/medium/general/REQUIRE_APPROVAL'],
];

t.test('every rule of the corpus, action/risk/category/rule', async (t) => {
  for (const [input, expected] of CORPUS) t.equal(brief(classifyTool(input)), expected, input.name);
});

t.test("the vocabulary is the capability model's: no second list", async (t) => {
  for (const [input] of CORPUS) {
    const c = classifyTool(input);
    t.ok((RISK_LEVELS as readonly string[]).includes(c.risk_level), `${input.name} risk ${c.risk_level}`);
    t.ok((TOOL_ACTIONS as readonly string[]).includes(c.action), `${input.name} action ${c.action}`);
    t.ok((RULES as readonly string[]).includes(c.proposed_rule!), `${input.name} rule ${c.proposed_rule}`);
    t.ok((TOOL_CATEGORIES as readonly string[]).includes(c.category), `${input.name} category ${c.category}`);
  }
  // The capability model reads the traits as known ones: the safe profile denies a classified
  // delete, which it would hold (unknown_tools) only for traits it does not know.
  const del = classifyTool(CORPUS.find(([x]) => x.name === 'delete_file')![0]);
  t.equal(capabilityRule(PROFILE_MODELS.safe, { riskLevel: del.risk_level, action: del.action }), 'DENY');
  const shell = classifyTool(CORPUS.find(([x]) => x.name === 'terminal')![0]);
  t.equal(
    capabilityRule(PROFILE_MODELS.balanced, { riskLevel: shell.risk_level, action: shell.action }),
    'DENY',
    'critical is denied by balanced',
  );
  const read = classifyTool(CORPUS[0]![0]);
  t.equal(capabilityRule(PROFILE_MODELS.safe, { riskLevel: read.risk_level, action: read.action }), 'ALLOW');
});

t.test('server-everything tools, listed by the real server', async (t) => {
  const specifier = '@modelcontextprotocol/server-everything/dist/server/index.js';
  const { createServer } = (await import(specifier)) as {
    createServer: () => { server: { connect(x: unknown): Promise<void> }; cleanup?: () => void };
  };
  const { server, cleanup } = createServer();
  const [serverSide, clientSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'classify-test', version: '1.0.0' });
  await client.connect(clientSide);
  t.teardown(async () => {
    await client.close();
    cleanup?.();
  });
  const { tools } = await client.listTools();
  const got = Object.fromEntries(tools.map((x) => [x.name, brief(classifyTool(x as ClassifiableTool))]));
  t.same(got, {
    echo: 'read/low/general/ALLOW',
    'get-annotated-message': 'read/low/messaging/ALLOW',
    'get-env': 'read/high/secrets/REQUIRE_APPROVAL',
    'get-resource-links': 'read/low/general/ALLOW',
    'get-resource-reference': 'read/low/general/ALLOW',
    'get-structured-content': 'read/low/general/ALLOW',
    'get-sum': 'read/low/general/ALLOW',
    'get-tiny-image': 'read/low/general/ALLOW',
    'gzip-file-as-resource': 'write/medium/filesystem/REQUIRE_APPROVAL',
    'toggle-simulated-logging': 'write/medium/general/REQUIRE_APPROVAL',
    'toggle-subscriber-updates': 'write/medium/general/REQUIRE_APPROVAL',
    'trigger-long-running-operation': 'write/medium/general/REQUIRE_APPROVAL',
    'simulate-research-query': 'write/medium/general/REQUIRE_APPROVAL',
  });
});

t.test('names: every identifier style splits into words', async (t) => {
  t.same(nameWords('deleteFile'), ['delete', 'file']);
  t.same(nameWords('DeleteHTTPRoute'), ['delete', 'http', 'route']);
  t.same(nameWords('mcp__github__create-issue.v2'), ['mcp', 'github', 'create', 'issue', 'v2']);
  for (const name of ['deleteFile', 'DeleteFile', 'delete-file', 'delete.file', 'files.delete', 'fs_delete_file']) {
    t.equal(classifyTool(tool(name)).action, 'delete', name);
  }
});

t.test('names: the first verb decides, later verbs only after a conjunction', async (t) => {
  t.equal(classifyTool(tool('get_workflow_run')).action, 'read', 'run is the noun here');
  t.equal(classifyTool(tool('get_commit')).action, 'read');
  t.equal(classifyTool(tool('get_and_delete_message')).action, 'delete');
  t.equal(classifyTool(tool('fetch_then_run')).action, 'execute');
  t.equal(classifyTool(tool('list_deleted_items')).action, 'read', 'inflected words in names are not verbs');
  t.equal(classifyTool(tool('github_create_issue')).action, 'write', 'a namespace word before the verb is skipped');
});

t.test("the description's first verb counts, after a lead-in", async (t) => {
  t.equal(classifyTool(tool('files', 'Use this tool to delete a file.')).action, 'delete');
  t.equal(classifyTool(tool('files', 'This tool lets you list the files of a folder.')).action, 'read');
  t.equal(classifyTool(tool('index', 'Queries the search index.')).action, 'read');
  t.equal(classifyTool(tool('index', 'A friendly helper for the search index.')).action, 'other', 'no verb first: nothing');
  t.equal(classifyTool(tool('get_item', 'Removes the item.')).action, 'delete', 'the most severe of name and description wins');
});

t.test('destructive verbs anywhere in the description, unless negated', async (t) => {
  const c = classifyTool(tool('archive_message', 'Moves a message to the archive, or deletes it when the archive is full.'));
  t.equal(c.action, 'delete');
  t.match(c.reasons.join('\n'), /description says "deletes"/);
  t.equal(classifyTool(tool('list_files', 'Lists files. It never deletes anything.')).action, 'read');
  t.equal(classifyTool(tool('list_files', 'Lists files; does not drop or purge anything.')).action, 'read');
  t.equal(classifyTool(tool('pick_option', 'Picks an option from the drop-down menu.')).action, 'other', 'drop-down is not a drop');
});

t.test('description phrases: execution, irreversibility, payments, secrets', async (t) => {
  t.equal(
    brief(classifyTool(tool('sandbox', 'Evaluates arbitrary code in a sandbox.'))),
    'execute/critical/code_execution/REQUIRE_APPROVAL',
  );
  t.equal(
    brief(classifyTool(tool('archive_project', 'Archives the project. This cannot be undone.'))),
    'write/high/general/REQUIRE_APPROVAL',
  );
  t.equal(
    brief(classifyTool(tool('recent_activity', 'Lists recent payments of the account.'))),
    'read/medium/payments/LOG_ONLY',
    'reading payments is medium',
  );
  t.equal(brief(classifyTool(tool('stripe_create', 'Creates a refund for a charge.'))), 'write/critical/payments/REQUIRE_APPROVAL');
  t.equal(brief(classifyTool(tool('show_config', 'Shows the stored credentials.'))), 'read/medium/secrets/LOG_ONLY');
  t.equal(classifyTool(tool('ls', 'Lists files. Never runs shell commands.')).action, 'read', 'a negated phrase does not count');
});

t.test('schema parameters, at any depth and through $defs', async (t) => {
  const nested = { type: 'object', properties: { options: { type: 'object', properties: { cmd: { type: 'string' } } } } };
  t.equal(brief(classifyTool(tool('job', undefined, nested))), 'execute/critical/code_execution/REQUIRE_APPROVAL');
  const viaDefs = {
    type: 'object',
    properties: { q: { $ref: '#/$defs/Q' } },
    $defs: { Q: { type: 'object', properties: { sql: { type: 'string' } } } },
  };
  t.equal(brief(classifyTool(tool('db', undefined, viaDefs))), 'execute/high/database/REQUIRE_APPROVAL');
  t.equal(
    classifyTool(tool('format_code', 'Formats source code.', props('code'))).action,
    'read',
    'a code parameter alone is not execution',
  );
  t.equal(brief(classifyTool(tool('run_code', 'Runs a snippet.', props('code')))), 'execute/critical/code_execution/REQUIRE_APPROVAL');
  t.equal(
    brief(classifyTool(tool('get_preview', undefined, { type: 'object', properties: { target: { type: 'string', format: 'uri' } } }))),
    'read/medium/network/LOG_ONLY',
  );
  t.equal(classifyTool(tool('get_size', undefined, props('file_path'))).category, 'filesystem');
  t.equal(classifyTool(tool('get_quote', undefined, props('amount'))).category, 'general', 'amount alone is no payment');
  t.equal(brief(classifyTool(tool('set_limit', undefined, props('amount', 'currency')))), 'write/critical/payments/REQUIRE_APPROVAL');
  const inDefault = { type: 'object', properties: { opts: { type: 'object', default: { properties: { command: 'x' } } } } };
  t.equal(classifyTool(tool('get_opts', undefined, inDefault)).action, 'read', 'data inside default is not a parameter');
});

t.test('annotations raise', async (t) => {
  t.equal(brief(classifyTool(tool('zap', undefined, undefined, { destructiveHint: true }))), 'write/high/general/REQUIRE_APPROVAL');
  t.equal(classifyTool(tool('get_token', undefined, undefined, { readOnlyHint: false })).action, 'write');
  t.equal(brief(classifyTool(tool('get_page', undefined, undefined, { openWorldHint: true }))), 'read/medium/network/LOG_ONLY');
  t.equal(
    classifyTool(tool('get_file', undefined, undefined, { openWorldHint: true })).category,
    'filesystem',
    'openWorldHint names a category only when nothing else does',
  );
});

t.test('annotations never lower: a readOnlyHint cannot make a delete a read', async (t) => {
  const lying = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
  const c = classifyTool(tool('delete_repository', 'Deletes a repository.', props('owner', 'repo'), lying));
  t.equal(brief(c), 'delete/high/source_control/REQUIRE_APPROVAL');
  t.match(c.reasons.join('\n'), /readOnlyHint true not trusted/);
  t.equal(
    brief(classifyTool(tool('zap', 'Handles it.', undefined, lying))),
    'other/medium/general/REQUIRE_APPROVAL',
    'no evidence stays other',
  );
  for (const [input, expected] of CORPUS) {
    t.equal(brief(classifyTool({ ...input, annotations: lying })), expected, `${input.name} with lowering hints`);
  }
});

t.test('hints that are not booleans are ignored; absent hints are not defaulted', async (t) => {
  const c = classifyTool(tool('get_item', undefined, undefined, { readOnlyHint: 'false', destructiveHint: 1 }));
  t.equal(brief(c), 'read/low/general/ALLOW');
  t.match(c.reasons.join('\n'), /readOnlyHint is not a boolean/);
  t.equal(classifyTool(tool('get_item')).risk_level, 'low', "MCP's destructiveHint default (true) is not applied");
});

t.test('the proposal: the stricter of action and risk, never DENY, source action', async (t) => {
  const ACTION_RULE: Record<string, Rule> = {
    read: 'ALLOW',
    write: 'REQUIRE_APPROVAL',
    delete: 'REQUIRE_APPROVAL',
    execute: 'REQUIRE_APPROVAL',
    other: 'REQUIRE_APPROVAL',
  };
  const RISK_RULE: Record<string, Rule> = { low: 'ALLOW', medium: 'LOG_ONLY', high: 'REQUIRE_APPROVAL', critical: 'REQUIRE_APPROVAL' };
  for (const [input] of CORPUS) {
    const c = classifyTool(input);
    t.not(c.proposed_rule, 'DENY', input.name);
    t.equal(c.proposed_rule, strictest(ACTION_RULE[c.action]!, RISK_RULE[c.risk_level]!), input.name);
    t.equal(c.proposed_rule_source, 'action');
    t.ok(c.reasons.length >= 2, 'explained');
  }
});

t.test('applyTemplateRule only tightens, and only then says template', async (t) => {
  const read = classifyTool(CORPUS[0]![0]);
  const denied = applyTemplateRule(read, 'DENY');
  t.equal(denied.proposed_rule, 'DENY');
  t.equal(denied.proposed_rule_source, 'template');
  t.equal(read.proposed_rule, 'ALLOW', 'the input is not changed');
  const logged = applyTemplateRule(read, 'LOG_ONLY');
  t.same([logged.proposed_rule, logged.proposed_rule_source], ['LOG_ONLY', 'template']);
  const write = classifyTool(CORPUS[4]![0]);
  for (const looser of ['ALLOW', 'LOG_ONLY', 'REQUIRE_APPROVAL'] as const) {
    const kept = applyTemplateRule(write, looser);
    t.same([kept.proposed_rule, kept.proposed_rule_source], ['REQUIRE_APPROVAL', 'action'], looser);
  }
  const none: Classification = { ...write, proposed_rule: null, proposed_rule_source: null };
  t.same(applyTemplateRule(none, 'DENY'), none, 'no proposal, nothing to tighten');
  t.throws(() => applyTemplateRule(read, 'BLOCK' as Rule), TypeError);
});

t.test('schemas too deep or too big are bounded, never a crash', async (t) => {
  let deep: Record<string, unknown> = { type: 'string' };
  for (let i = 0; i < 20_000; i++) deep = { type: 'object', properties: { [`p${i}`]: deep } };
  t.equal(classifyTool(tool('get_deep', undefined, deep)).action, 'read');
  const wide = { type: 'object', properties: Object.fromEntries(Array.from({ length: 50_000 }, (_, i) => [`f${i}`, { type: 'string' }])) };
  const started = process.hrtime.bigint();
  t.equal(classifyTool(tool('get_wide', undefined, wide)).action, 'read');
  t.comment(`50 000 properties in ${Number(process.hrtime.bigint() - started) / 1e6} ms`);
  t.equal(classifyTool(tool('x', 'a'.repeat(5_000_000))).action, 'other', 'a huge description is read only in part');
});
