// gatewayctl verify: runs a prompt through POST /api/v1/verify and prints the decision. The exit
// code is the decision, so that scripts can branch: 0 forwarded (PASSED, FLAGGED, MODIFIED),
// 4 BLOCKED, 5 PENDING_APPROVAL; 1-3 keep their meaning (refused, operator mistake, unreachable).
import fs from 'node:fs/promises';
import { Args, Flags } from '@oclif/core';
import { SOURCES } from '../../shared/verify-policy-schemas.js';
import { verifyRequestBody } from '../../shared/verify-request-schema.js';
import { traceListQuery } from '../../shared/trace-schemas.js';
import { checkBody, parseJsonFlag } from '../agent-flags.js';
import { GatewayCommand } from '../base-command.js';
import type { Connection } from '../config.js';
import { EXIT, UsageError } from '../errors.js';
import { keyValues } from '../format.js';
import { safeText } from '../trace-output.js';
import { VerifyClient, type GovernanceState, type VerifyAnswer } from '../verify-client.js';

/** The exit code of each decision; an unknown decision fails closed. */
export const DECISION_EXIT: Readonly<Record<string, number>> = {
  PASSED: 0,
  FLAGGED: 0,
  MODIFIED: 0,
  BLOCKED: 4,
  PENDING_APPROVAL: 5,
};

/** The daemon takes at most 1,000,000 characters; no more than that many UTF-8 bytes are read. */
const MAX_INPUT_BYTES = 4_000_000;

async function readBounded(source: NodeJS.ReadableStream, what: string): Promise<string> {
  const chunks: Buffer[] = [];
  let length = 0;
  for await (const chunk of source as AsyncIterable<Buffer | string>) {
    const buf = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    length += buf.length;
    if (length > MAX_INPUT_BYTES)
      throw new UsageError(`${what}: larger than ${MAX_INPUT_BYTES} bytes; the gateway takes at most 1,000,000 characters`);
    chunks.push(buf);
  }
  return Buffer.concat(chunks).toString('utf8');
}

async function readPrompt(text: string | undefined, file: string | undefined): Promise<string> {
  if (text !== undefined && file !== undefined) throw new UsageError('give the prompt as TEXT or with --file, not both');
  if (file === '-' || text === '-') return readBounded(process.stdin, 'stdin');
  if (text !== undefined) return text;
  if (file === undefined) throw new UsageError('nothing to verify: give TEXT, --file FILE, or --file - for stdin');
  let handle: fs.FileHandle;
  try {
    handle = await fs.open(file, 'r');
  } catch (err) {
    throw new UsageError(`--file: cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? 'unknown error'}`);
  }
  try {
    return await readBounded(handle.createReadStream({ autoClose: false }), `--file ${file}`);
  } catch (err) {
    if (err instanceof UsageError) throw err;
    throw new UsageError(`--file: cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? 'unknown error'}`);
  } finally {
    await handle.close();
  }
}

const FLAG_OF_KEY: Readonly<Record<string, string>> = { agent_id: '--agent-id', source: '--source', environment: '--env' };

/** --metadata-json as the base; the dedicated flags add their keys and may not contradict it. */
function metadataOf(flags: {
  'agent-id'?: string;
  source?: string;
  env?: string;
  'metadata-json'?: string;
}): Record<string, unknown> | undefined {
  checkBody(
    traceListQuery.pick({ agent_id: true, environment: true }),
    { agent_id: flags['agent-id'], environment: flags.env },
    { environment: '--env' },
  );
  let metadata: Record<string, unknown> = {};
  if (flags['metadata-json'] !== undefined) {
    const base = parseJsonFlag('--metadata-json', flags['metadata-json']);
    if (base === null || typeof base !== 'object' || Array.isArray(base)) throw new UsageError('--metadata-json: expected a JSON object');
    metadata = { ...base };
  }
  const given = { agent_id: flags['agent-id'], source: flags.source, environment: flags.env };
  for (const [key, value] of Object.entries(given)) {
    if (value === undefined) continue;
    if (key in metadata && metadata[key] !== value) throw new UsageError(`${FLAG_OF_KEY[key]} and --metadata-json disagree about ${key}`);
    metadata[key] = value;
  }
  return flags['metadata-json'] === undefined && Object.keys(metadata).length === 0 ? undefined : metadata;
}

function describe(answer: VerifyAnswer): string {
  const entries: Record<string, string | number | null> = { decision: answer.decision };
  if (answer.output !== undefined) entries.output = safeText(answer.output);
  if (answer.reason !== undefined) entries.reason = safeText(answer.reason);
  if (answer.enforcement_action !== undefined) entries.enforcement_action = answer.enforcement_action;
  if (answer.action_config?.redirect_url !== undefined) entries.redirect_url = safeText(answer.action_config.redirect_url);
  if (answer.error_class !== undefined) entries.error_class = answer.error_class;
  entries.trace_id = answer.trace_id;
  entries.sequence_num = answer.sequence_num ?? 'pending (queued while the trace store is degraded; numbered on replay)';
  return keyValues(entries);
}

function degradedNotice(g: GovernanceState): string | null {
  if (g.status !== 'degraded') return null;
  const what = g.degraded.length > 0 ? ` (${g.degraded.join(', ')})` : '';
  return `Warning: X-Gateway-Status: degraded${what}; trace persisted: ${g.persisted ?? 'unknown'}.`;
}

export default class Verify extends GatewayCommand {
  static override summary = "Verify a prompt against the project's policies; the exit code is the decision.";
  static override description =
    'Prints the decision, the output to forward (nothing when blocked or held), the reason, '
    + 'the trace id and its sequence number. Exit 0: PASSED, FLAGGED or MODIFIED (forward the output); '
    + '4: BLOCKED; 5: PENDING_APPROVAL (see approvals status --trace-id); 1: the gateway refused the '
    + 'request; 2: operator mistake; 3: the gateway is unreachable or could not record the decision.';

  static override examples = [
    '<%= config.bin %> verify "Summarise the quarterly report"',
    '<%= config.bin %> verify --file prompt.txt --agent-id AGENT --env staging',
    'git diff | <%= config.bin %> verify --file - --json',
  ];

  static override args = {
    // oclif would otherwise take a piped stdin as TEXT on its own (trimmed, within 10 ms); only - or --file - read it.
    text: Args.string({ description: 'The prompt (- reads stdin).', ignoreStdin: true }),
  };

  static override flags = {
    file: Flags.string({ summary: 'Read the prompt from FILE (- for stdin).' }),
    'agent-id': Flags.string({ summary: 'Attribute the request to this agent (metadata.agent_id).' }),
    source: Flags.string({ summary: 'Where the prompt comes from (metadata.source; default api).', options: [...SOURCES] }),
    env: Flags.string({ summary: "Environment (metadata.environment; the daemon's default: prod)." }),
    'metadata-json': Flags.string({ summary: 'Further metadata, a JSON object (the flags above add to it).' }),
  };

  protected override clientFor(connection: Connection): VerifyClient {
    return new VerifyClient(connection, this.config.userAgent);
  }

  async run(): Promise<VerifyAnswer> {
    const { args, flags } = await this.parse(Verify);
    const metadata = metadataOf(flags);
    const prompt = await readPrompt(args.text, flags.file);
    const body = checkBody(verifyRequestBody, metadata === undefined ? { prompt } : { prompt, metadata }, {
      prompt: flags.file === undefined ? 'TEXT' : '--file',
      metadata: '--metadata-json',
    });
    const api = await this.api();
    if (!(api instanceof VerifyClient)) throw new Error('verify needs the verify client');
    const { answer, governance } = await api.verify(body);
    const notice = degradedNotice(governance);
    if (notice) this.notice(notice);
    this.log(describe(answer));
    process.exitCode = DECISION_EXIT[answer.decision] ?? EXIT.refused;
    return answer;
  }
}
