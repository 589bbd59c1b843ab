// gatewayctl traces check-proof for anchored traces, end to end: the compiled CLI against a daemon
// anchoring to a real anvil node, --rpc pointed at that node, at a node that never saw the
// transaction, and at nothing; and a proxy that tampers with the bundle in transit, which only the
// local re-check (and, for a forged epoch, the chain) can catch. Subtests run in order.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { encodeAnchorCalldata, epochLeafHash } from '../../../../shared/anchor-format.js';
import { rootFromLeaves } from '../../../../shared/merkle.js';
import { startAnvil } from '../../../helpers/anvil.js';
import { runCli, type CliRun } from '../../../helpers/cli.js';
import { startRewritingProxy } from '../../../helpers/rewriting-proxy.js';
import { addProject, anchoredGateway, runNow, seedTraces } from '../../../anchor/setup.js';

const node = await startAnvil(t);
const gw = await anchoredGateway(t, node);
const home = await fs.mkdtemp(path.join(os.tmpdir(), 'gwctl-anchor-proof-'));
t.teardown(() => fs.rm(home, { recursive: true, force: true }));
const NOWHERE = 'http://127.0.0.1:1';

function ctl(args: string[], env: Record<string, string> = {}): Promise<CliRun> {
  return runCli(args, home, { GATEWAYCTL_CONFIG: path.join(home, 'none.json'), GATEWAY_URL: gw.url, GATEWAY_TOKEN: gw.adminToken, ...env });
}

// Traces 1..10 anchored in epoch 1; 11..12 checkpointed after it, waiting for the next epoch.
await gw.api('PATCH', '/api/v1/project', { body: { attestation_enabled: true } });
await addProject(gw, 'p2', true);
const traces = await seedTraces(gw, 'default', 10);
await seedTraces(gw, 'p2', 2);
await gw.gateway.checkpointNow();
const epoch = (await runNow(gw)).body.epoch;
const pending = await seedTraces(gw, 'default', 2);
await gw.gateway.checkpointNow();
const vkey: string = (await gw.api('GET', '/api/v1/ledger/checkpoint')).body.vkey;
const ID = traces[4]!.id;

const STEPS = 'integrity_hash|content_hash|prev_link|next_link|checkpoint_signature|inclusion|epoch_inclusion|anchor_calldata|anchor_tx';
/** `CHECK  SERVER  LOCAL` rows of the human output. */
function checkRows(stdout: string): Record<string, [string, string]> {
  const rows: Record<string, [string, string]> = {};
  for (const m of stdout.matchAll(new RegExp(`^(${STEPS})\\s+(\\S+)\\s+(\\S+)$`, 'gm'))) rows[m[1]!] = [m[2]!, m[3]!];
  return rows;
}
const firstFailing = (stdout: string) => /^First failing step: (.*)$/m.exec(stdout)?.[1] ?? null;

t.test('an anchored trace with --rpc: every step ok, the transaction checked on chain', async (t) => {
  t.match(epoch, { epoch: 1, state: 'ANCHORED' });
  const run = await ctl(['traces', 'check-proof', ID, '--vkey', vkey, '--rpc', node.url]);
  t.equal(run.code, 0, run.stderr + run.stdout);
  t.equal(run.stderr, '');
  t.match(run.stdout, new RegExp(`^Trace ${ID} \\(sequence 5\\): INTACT$`, 'm'));
  t.same(checkRows(run.stdout), {
    integrity_hash: ['ok', 'ok'],
    content_hash: ['ok', '-'],
    prev_link: ['ok', '-'],
    next_link: ['ok', '-'],
    checkpoint_signature: ['ok', 'ok'],
    inclusion: ['ok', 'ok'],
    epoch_inclusion: ['ok', 'ok'],
    anchor_calldata: ['ok', 'ok'],
    anchor_tx: ['not_checked', 'ok'],
  });
  t.match(
    run.stdout,
    new RegExp(
      `^Anchored in epoch 1 \\(leaf 0 of 2\\) on flare chain 114, transaction ${epoch.tx_hash} in block ${epoch.block_number}\\.$`,
      'm',
    ),
  );
  t.match(run.stdout, /^anchor_tx checked on http:\/\/127\.0\.0\.1:\d+: the transaction carries this calldata and succeeded\.$/m);
  t.equal(firstFailing(run.stdout), null);

  const json = await ctl(['traces', 'check-proof', ID, '--vkey', vkey, '--rpc', node.url, '--json']);
  t.equal(json.code, 0);
  t.match(json.json, {
    intact: true,
    first_failure: null,
    disagreements: [],
    local: { reason: null, rpc: node.url, checks: { epoch_inclusion: 'ok', anchor_calldata: 'ok', anchor_tx: 'ok' } },
  });
});

t.test('without --rpc: anchor_tx is not_checked, and the CLI says how to check it', async (t) => {
  const run = await ctl(['traces', 'check-proof', ID, '--vkey', vkey]);
  t.equal(run.code, 0, run.stderr);
  t.same(checkRows(run.stdout).anchor_tx, ['not_checked', 'not_checked']);
  t.same(checkRows(run.stdout).epoch_inclusion, ['ok', 'ok']);
  t.match(run.stdout, /^anchor_tx not checked: pass --rpc URL \(a JSON-RPC node of chain 114\) to check the transaction on chain\.$/m);
});

t.test('a trace newer than the anchored checkpoint: pending, and no RPC call is made', async (t) => {
  const run = await ctl(['traces', 'check-proof', pending[0]!.id, '--vkey', vkey, '--rpc', NOWHERE]);
  t.equal(run.code, 0, run.stderr + run.stdout);
  t.match(checkRows(run.stdout), {
    inclusion: ['ok', 'ok'],
    epoch_inclusion: ['pending', 'pending'],
    anchor_calldata: ['pending', 'pending'],
    anchor_tx: ['pending', 'pending'],
  });
  t.match(run.stdout, /^Anchoring pending: no anchored epoch covers this trace yet/m);
});

t.test('--rpc at a node that never saw the transaction, or at nothing: not intact, exit 1', async (t) => {
  const other = await startAnvil(t);
  const notFound = await ctl(['traces', 'check-proof', ID, '--vkey', vkey, '--rpc', other.url]);
  t.equal(notFound.code, 1);
  t.match(notFound.stdout, /: NOT INTACT$/m);
  t.same(checkRows(notFound.stdout).anchor_tx, ['not_checked', 'failed']);
  t.match(
    firstFailing(notFound.stdout),
    new RegExp(`^anchor_tx \\(anchor_tx_not_found: the node does not know transaction ${epoch.tx_hash}\\), found by the local check\\.$`),
  );

  const unreachable = await ctl(['traces', 'check-proof', ID, '--vkey', vkey, '--rpc', NOWHERE, '--json']);
  t.equal(unreachable.code, 1, 'fail closed: an unchecked transaction is not intact');
  t.match(unreachable.json, {
    intact: false,
    first_failure: {
      step: 'anchor_tx',
      by: 'local',
      reason: 'anchor_rpc_unreachable',
      detail: /^no usable answer from the RPC node, nothing checked on chain: http:\/\/127\.0\.0\.1:1: ECONNREFUSED$/,
    },
    local: { checks: { anchor_calldata: 'ok', anchor_tx: 'failed' } },
  });

  for (const bad of ['not a url', 'ftp://127.0.0.1/']) {
    const usage = await ctl(['traces', 'check-proof', ID, '--rpc', bad, '--json'], { GATEWAY_URL: NOWHERE });
    t.equal(usage.code, 2, usage.stderr);
    t.match(usage.json, { error: { code: 'usage_error', message: /^--rpc: not an http\(s\) URL/ } });
  }
});

// A daemon that lies: verify-proof answers rewritten on their way to the CLI.
const lying = await startRewritingProxy(t, gw.url, '/api/v1/verify-proof');
const PROXY = lying.url;

const flipB64 = (b64: string) => {
  const b = Buffer.from(b64, 'base64');
  b[0] ^= 1;
  return b.toString('base64');
};
const flipHex = (hex: string, at: number) => `${hex.slice(0, at)}${hex[at] === '0' ? '1' : '0'}${hex.slice(at + 1)}`;

t.test('a bundle tampered in transit: the local check names the failing step', async (t) => {
  // biome-ignore lint/suspicious/noExplicitAny: each case edits a different part of the bundle's JSON
  const cases: [string, (r: any) => any, string, RegExp][] = [
    [
      'a header field',
      (r) => ({ ...r, header: { ...r.header, reason: 'rewritten' } }),
      'integrity_hash',
      /^integrity_hash \(integrity_hash_mismatch: /,
    ],
    [
      'the inclusion path',
      (r) => ({
        ...r,
        merkle: { ...r.merkle, inclusion_path: [flipB64(r.merkle.inclusion_path[0]), ...r.merkle.inclusion_path.slice(1)] },
      }),
      'inclusion',
      /^inclusion \(inclusion_proof_invalid: /,
    ],
    [
      'the epoch root',
      (r) => ({ ...r, epoch: { ...r.epoch, root: flipHex(r.epoch.root, 2) } }),
      'epoch_inclusion',
      /^epoch_inclusion \(epoch_inclusion_invalid: the epoch inclusion path /,
    ],
    [
      'the epoch leaf_index',
      (r) => ({ ...r, epoch: { ...r.epoch, leaf_index: 1 } }),
      'epoch_inclusion',
      /^epoch_inclusion \(epoch_inclusion_invalid: /,
    ],
    [
      'the checkpoint body',
      (r) => ({ ...r, epoch: { ...r.epoch, checkpoint_body: r.epoch.checkpoint_body.replace(/\n10\n/, '\n11\n') } }),
      'epoch_inclusion',
      /^epoch_inclusion \(epoch_inclusion_invalid: epoch\.checkpoint_body is not the body of the signed checkpoint\)/,
    ],
    [
      'the epoch number in the calldata',
      (r) => ({ ...r, anchor: { ...r.anchor, calldata: flipHex(r.anchor.calldata, 2 + 8 + 14) } }),
      'anchor_calldata',
      /^anchor_calldata \(anchor_calldata_mismatch: the calldata carries epoch 17, the bundle epoch 1\)/,
    ],
    [
      'a malformed epoch',
      (r) => ({ ...r, epoch: { ...r.epoch, inclusion_path: 'AAAA' } }),
      'epoch_inclusion',
      /^epoch_inclusion \(bundle_malformed: the proof bundle is malformed at epoch\.inclusion_path\)/,
    ],
  ];
  for (const [what, change, step, failure] of cases) {
    lying.rewrite = change;
    const run = await ctl(['traces', 'check-proof', ID, '--vkey', vkey, '--rpc', node.url], { GATEWAY_URL: PROXY });
    t.equal(run.code, 1, `${what}: ${run.stderr}`);
    t.match(run.stdout, /: NOT INTACT$/m, what);
    t.equal(checkRows(run.stdout)[step]?.[1], 'failed', `${what}: ${step} fails locally`);
    t.match(firstFailing(run.stdout), failure, what);
    t.match(firstFailing(run.stdout), /, found by the local check\.$/, what);
    t.match(
      run.stdout,
      new RegExp(`^The local check disagrees with the server: ${step} is failed locally, ok by the server\\.$`, 'm'),
      what,
    );
    t.same(checkRows(run.stdout).anchor_tx, ['not_checked', 'not_checked'], `${what}: no RPC call after an offline failure`);
  }
  lying.rewrite = (r) => r;
  t.equal(
    (await ctl(['traces', 'check-proof', ID, '--vkey', vkey, '--rpc', node.url], { GATEWAY_URL: PROXY })).code,
    0,
    'untouched through the proxy: intact',
  );
});

t.test('a bundle consistent offline but not what the chain holds: only anchor_tx (--rpc) catches it', async (t) => {
  // A forged epoch: the real checkpoint in a two-leaf tree of the forger's, its root in matching calldata.
  // biome-ignore lint/suspicious/noExplicitAny: each case edits a different part of the bundle's JSON
  const forged = (r: any) => {
    const sibling = epochLeafHash('forged\n1\nAAAA\n');
    const root = rootFromLeaves([epochLeafHash(r.epoch.checkpoint_body), sibling]);
    return {
      ...r,
      epoch: { ...r.epoch, leaf_index: 0, leaf_count: 2, inclusion_path: [sibling.toString('base64')], root: `0x${root.toString('hex')}` },
      anchor: { ...r.anchor, calldata: encodeAnchorCalldata({ epoch: 1n, root }) },
    };
  };
  // A transaction that carries the real calldata but reverted (to a contract that always reverts), from another account.
  const reverter = '0x00000000000000000000000000000000000000aa';
  await node.rpc('anvil_setCode', [reverter, '0x60006000fd']);
  const calldata: string = (await gw.api('POST', '/api/v1/verify-proof', { body: { trace_id: ID } })).body.anchor.calldata;
  const revertedHash = (await node.rpc('eth_sendTransaction', [
    { from: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8', to: reverter, data: calldata, gas: '0x30000' },
  ])) as string;
  const revertedBlock = Number((await node.receipt(revertedHash)).blockNumber);
  // biome-ignore lint/suspicious/noExplicitAny: each case edits a different part of the bundle's JSON
  const cases: [string, (r: any) => any, RegExp][] = [
    ['a forged epoch', forged, /^anchor_tx \(anchor_tx_mismatch: the transaction's input is not the bundle's anchor calldata\)/],
    [
      'another chain id',
      (r) => ({ ...r, anchor: { ...r.anchor, chain_id: 14 } }),
      /^anchor_tx \(anchor_tx_mismatch: the transaction is for chain 114, the bundle says 14\)/,
    ],
    [
      'another block',
      (r) => ({ ...r, anchor: { ...r.anchor, block_number: r.anchor.block_number + 100 } }),
      /^anchor_tx \(anchor_tx_mismatch: the transaction is in block \d+, the bundle says \d+\)/,
    ],
    [
      'a transaction that reverted',
      (r) => ({ ...r, anchor: { ...r.anchor, tx_hash: revertedHash, block_number: revertedBlock } }),
      /^anchor_tx \(anchor_tx_failed: the transaction's receipt status is 0x0, not 0x1 \(success\)\)/,
    ],
  ];
  for (const [what, change, failure] of cases) {
    lying.rewrite = change;
    const offline = await ctl(['traces', 'check-proof', ID, '--vkey', vkey], { GATEWAY_URL: PROXY });
    t.equal(offline.code, 0, `${what}: consistent offline: ${offline.stdout}`);
    const run = await ctl(['traces', 'check-proof', ID, '--vkey', vkey, '--rpc', node.url], { GATEWAY_URL: PROXY });
    t.equal(run.code, 1, what);
    t.same(checkRows(run.stdout).anchor_tx, ['not_checked', 'failed'], what);
    t.match(firstFailing(run.stdout), failure, what);
  }
  lying.rewrite = (r) => r;
});
