// gatewayctl traces check-proof (old name: traces verify-proof, kept as an alias): asks the daemon
// for a trace's proof bundle and verdict, then redoes the bundle-only checks (hash, checkpoint
// signature, inclusion, epoch inclusion, anchor calldata) here, against the pinned --vkey when
// given, and with --rpc asks that node whether the anchor transaction is on chain. Exit 0 only
// when the server says intact and the local checks agree; 1 otherwise (an RPC node that gives no
// usable answer included: nothing unchecked passes).
import { Args, Flags } from '@oclif/core';
import { parseVerifierKey } from '../../../shared/signed-note.js';
import { verifyProofBody } from '../../../shared/trace-schemas.js';
import { checkBody } from '../../agent-flags.js';
import { GatewayCommand } from '../../base-command.js';
import { EXIT, UsageError } from '../../errors.js';
import { table } from '../../format.js';
import {
  checkLocally,
  compareProof,
  localResultOf,
  PROOF_STEPS,
  type ProofComparison,
  type ProofReport,
  type StepFailure,
} from '../../proof-compare.js';
import { safeText } from '../../trace-output.js';

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}

function failureText(f: StepFailure): string {
  const why = [f.reason, f.detail]
    .filter((s): s is string => typeof s === 'string' && s !== '')
    .map((s) => safeText(s, 300))
    .join(': ');
  const by = f.by === 'both' ? 'the server and the local check' : f.by === 'local' ? 'the local check' : 'the server';
  return `${f.step}${why ? ` (${why})` : ''}, found by ${by}`;
}

function anchorLines(c: ProofComparison): string[] {
  const { epoch, anchor } = c.server;
  const tx = c.local.checks.anchor_tx;
  if (!epoch || !anchor) {
    if (c.server.flare_status === 'PENDING')
      return ['Anchoring pending: no anchored epoch covers this trace yet; run again after the next epoch.'];
    return c.server.merkle === null ? [] : ['Anchoring: off for this project, nothing on chain to check.'];
  }
  const lines = [
    `Anchored in epoch ${epoch.epoch} (leaf ${epoch.leaf_index} of ${epoch.leaf_count}) on ${safeText(anchor.ledger)} chain ${anchor.chain_id}, `
      + `transaction ${safeText(anchor.tx_hash, 80)}${anchor.block_number === null ? '' : ` in block ${anchor.block_number}`}.`,
  ];
  if (c.local.rpc === null)
    lines.push(
      'anchor_tx not checked: pass --rpc URL (a JSON-RPC node of chain ' + anchor.chain_id + ') to check the transaction on chain.',
    );
  else if (tx === 'ok')
    lines.push(`anchor_tx checked on ${safeText(c.local.rpc, 200)}: the transaction carries this calldata and succeeded.`);
  return lines;
}

function summary(c: ProofComparison): string[] {
  const r = c.server;
  const lines = [`Trace ${c.trace_id} (sequence ${r.sequence_num}): ${c.intact ? 'INTACT' : 'NOT INTACT'}`];
  lines.push(
    table(
      ['CHECK', 'SERVER', 'LOCAL'],
      PROOF_STEPS.map((step) => [step, r.checks?.[step] ?? null, localResultOf(c.local, step)]),
    ),
  );
  lines.push(
    '(LOCAL -: a check that needs the database, done by the server only. anchor_tx needs a node of the chain: '
      + 'the server never checks it, the local check does with --rpc.)',
  );
  if (c.first_failure) lines.push(`First failing step: ${failureText(c.first_failure)}.`);
  for (const d of c.disagreements) {
    lines.push(`The local check disagrees with the server: ${d.step} is ${d.local} locally, ${d.server ?? 'not reported'} by the server.`);
  }
  if (r.merkle === null) lines.push('Inclusion pending: no checkpoint covers this trace yet; run again after the next one.');
  lines.push(...anchorLines(c));
  if (r.merkle !== null && c.local.vkey)
    lines.push(
      `Checkpoint checked against the ${c.local.vkey_source === 'pinned' ? 'pinned --vkey' : "server's key"} ${safeText(c.local.vkey.split('+').slice(0, 2).join('+'))}.`,
    );
  if (!r.content_available) lines.push('Content: not retained (retention); the hashes still verify without it.');
  return lines;
}

export default class TracesCheckProof extends GatewayCommand {
  static override aliases = ['traces:verify-proof'];
  static override deprecateAliases = true;
  static override summary = "Check one trace's proof: the server's checks, redone locally against a pinned key; exits 1 unless intact.";
  static override description =
    'Prints each step (integrity_hash, content_hash, prev_link, next_link, checkpoint_signature, '
    + 'inclusion, epoch_inclusion, anchor_calldata, anchor_tx) as the server and the local check see it, and the first failing '
    + 'step. The local check uses --vkey; without it, the key the server sends with the proof, which proves less: save the key '
    + 'out of band (gatewayctl ledger key) and pin it. For an anchored trace, --rpc URL checks the anchor transaction on a '
    + 'JSON-RPC node of your choice (one batch request); without it anchor_tx is not_checked. Exit 0 when intact and both '
    + 'agree, 1 otherwise (an unreachable --rpc node included).';

  static override examples = [
    '<%= config.bin %> traces check-proof TRACE_ID --vkey "$(cat gateway.vkey)"',
    '<%= config.bin %> traces check-proof TRACE_ID --vkey "$(cat gateway.vkey)" --rpc https://coston2-api.flare.network/ext/C/rpc',
    '<%= config.bin %> traces check-proof TRACE_ID --json',
  ];

  static override args = {
    id: Args.string({ description: 'ID of the trace (see traces list).', required: true }),
  };

  static override flags = {
    vkey: Flags.string({ summary: 'The checkpoint verifier key to trust (name+keyid+base64), saved earlier from ledger key.' }),
    rpc: Flags.string({ summary: 'An EVM JSON-RPC URL (http or https) to check the anchor transaction on chain.' }),
  };

  async run(): Promise<ProofComparison> {
    const { args, flags } = await this.parse(TracesCheckProof);
    const body = checkBody(verifyProofBody, { trace_id: args.id }, { trace_id: 'ID' });
    if (flags.vkey !== undefined) {
      try {
        parseVerifierKey(flags.vkey);
      } catch {
        throw new UsageError('--vkey: not a verifier key (name+keyid+base64, as ledger key prints it)');
      }
    }
    if (flags.rpc !== undefined && !isHttpUrl(flags.rpc)) throw new UsageError('--rpc: not an http(s) URL of a JSON-RPC node');
    const report = await (await this.api()).request<ProofReport>('POST', '/api/v1/verify-proof', body);
    const local = await checkLocally(report, body.trace_id, flags.vkey, flags.rpc);
    if (local.vkey_source === 'server') {
      this.notice(
        'Warning: no --vkey: the checkpoint was checked against the key the server sent with the proof, which proves '
          + 'less than a key pinned out of band (save gatewayctl ledger key somewhere the gateway cannot write, then pass --vkey).',
      );
    }
    const result = compareProof(report, local, body.trace_id);
    this.log(summary(result).join('\n'));
    if (!result.intact) process.exitCode = EXIT.refused;
    return result;
  }
}
