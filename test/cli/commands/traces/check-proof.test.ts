// gatewayctl traces check-proof and ledger checkpoint/key end to end: the compiled CLI against a
// real gatewayd, and against a proxy in front of it that tampers with the proof bundle in transit,
// which only the local re-check can catch. Subtests run in order; the last ones tamper the database.
import { generateKeyPairSync } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { verifierKey } from '../../../../shared/signed-note.js';
import { runCli, type CliRun } from '../../../helpers/cli.js';
import { startTestGateway } from '../../../helpers/gateway.js';
import { startRewritingProxy } from '../../../helpers/rewriting-proxy.js';
import { tamper } from '../../../helpers/tamper.js';

// Checkpoints only when a test cuts one (checkpointNow), never by the 10 s timer mid-test.
const gw = await startTestGateway(t, { env: { GATEWAY_CHECKPOINT_INTERVAL_SECONDS: '86400' } });
const home = await fs.mkdtemp(path.join(os.tmpdir(), 'gwctl-proof-'));
t.teardown(() => fs.rm(home, { recursive: true, force: true }));

const NOWHERE = 'http://127.0.0.1:1';
const REQUEST_ID_LINE = (code: string): RegExp => new RegExp(`^Error: ${code}: .+ \\(request_id \\S+\\)$`, 'm');

function ctl(args: string[], env: Record<string, string> = {}): Promise<CliRun> {
  return runCli(args, home, { GATEWAYCTL_CONFIG: path.join(home, 'none.json'), GATEWAY_URL: gw.url, GATEWAY_TOKEN: gw.adminToken, ...env });
}

// Sequence 1..20, in chain order; a checkpoint covers them all.
const traces: Awaited<ReturnType<typeof gw.gateway.writer.append>>[] = [];
for (let i = 0; i < 20; i++)
  traces.push(await gw.gateway.writer.append('default', { traceType: 'VERIFY', decision: 'PASSED', content: { display: `prompt ${i}` } }));
await gw.gateway.checkpointNow();
const bySeq = (seq: number) => traces.find((tr) => tr.sequenceNum === seq)!;

/** `CHECK  SERVER  LOCAL` rows of the human output. */
function checkRows(stdout: string): Record<string, [string, string]> {
  const rows: Record<string, [string, string]> = {};
  for (const m of stdout.matchAll(/^(integrity_hash|content_hash|prev_link|next_link|checkpoint_signature|inclusion)\s+(\S+)\s+(\S+)$/gm))
    rows[m[1]!] = [m[2]!, m[3]!];
  return rows;
}

let vkey = '';

t.test('ledger checkpoint and ledger key: the vkey and the latest signed checkpoint', async (t) => {
  const json = await ctl(['ledger', 'checkpoint', '--json']);
  t.equal(json.code, 0, json.stderr);
  t.same(json.json, (await gw.api('GET', '/api/v1/ledger/checkpoint')).body);
  t.match(json.json, { vkey: /^governance-gateway\.local\+[0-9a-f]{8}\+/, checkpoint: { tree_size: 20, root: String, note: String } });
  vkey = json.json.vkey;
  const human = await ctl(['ledger', 'checkpoint']);
  t.equal(human.code, 0, human.stderr);
  t.match(human.stdout, new RegExp(`^vkey:\\s+${vkey.replaceAll('+', '\\+')}$`, 'm'));
  t.match(human.stdout, /^tree_size:\s+20$/m);
  t.match(human.stdout, /^Signed note:\n {2}\S+\/projects\/default\n {2}20\n/m);
  const key = await ctl(['ledger', 'key']);
  t.equal(key.stdout, `${vkey}\n`, 'one line, for saving out of band');
  t.same((await ctl(['ledger', 'key', '--json'])).json, { vkey });
});

t.test("check-proof: an intact trace exits 0, every check printed; the server's key earns a warning", async (t) => {
  const id = bySeq(7).id;
  const pinned = await ctl(['traces', 'check-proof', id, '--vkey', vkey]);
  t.equal(pinned.code, 0, pinned.stderr);
  t.equal(pinned.stderr, '', 'no warning with a pinned key');
  t.match(pinned.stdout, new RegExp(`^Trace ${id} \\(sequence 7\\): INTACT$`, 'm'));
  t.match(pinned.stdout, /^CHECK\s+SERVER\s+LOCAL$/m);
  t.same(checkRows(pinned.stdout), {
    integrity_hash: ['ok', 'ok'],
    content_hash: ['ok', '-'],
    prev_link: ['ok', '-'],
    next_link: ['ok', '-'],
    checkpoint_signature: ['ok', 'ok'],
    inclusion: ['ok', 'ok'],
  });
  t.match(pinned.stdout, /^Checkpoint checked against the pinned --vkey governance-gateway\.local\+[0-9a-f]{8}\.$/m);
  t.notMatch(pinned.stdout, /First failing step/);

  const json = await ctl(['traces', 'check-proof', id, '--vkey', vkey, '--json']);
  t.equal(json.code, 0, json.stderr);
  t.match(json.json, {
    trace_id: id,
    intact: true,
    first_failure: null,
    disagreements: [],
    local: { reason: null, vkey, vkey_source: 'pinned' },
  });
  t.same(json.json.server, (await gw.api('POST', '/api/v1/verify-proof', { body: { trace_id: id } })).body, "the server's report whole");

  const unpinned = await ctl(['traces', 'check-proof', id]);
  t.equal(unpinned.code, 0, unpinned.stderr);
  t.match(
    unpinned.stderr,
    /^Warning: no --vkey: the checkpoint was checked against the key the server sent with the proof, which proves less than a key pinned out of band/,
  );
  t.match(unpinned.stdout, /against the server's key/);
  const last = await ctl(['traces', 'check-proof', bySeq(20).id, '--vkey', vkey]);
  t.equal(last.code, 0, last.stderr);
  t.same(checkRows(last.stdout).next_link, ['not_checked', '-'], 'the newest entry has no next link to check');

  const old = await ctl(['traces', 'verify-proof', id, '--vkey', vkey, '--json']);
  t.equal(old.code, 0, old.stderr);
  t.same(old.json, json.json, 'the old name, traces verify-proof, answers the same');
  const oldHuman = await ctl(['traces', 'verify-proof', id, '--vkey', vkey]);
  t.equal(oldHuman.stdout, pinned.stdout);
  t.match(oldHuman.stderr, /"traces verify-proof" command has been deprecated.*"traces check-proof"/s, 'and says the new name');
});

t.test('check-proof: a trace newer than the checkpoint is pending, not failed', async (t) => {
  const fresh = await gw.gateway.writer.append('default', { traceType: 'VERIFY', decision: 'PASSED', content: { display: 'late' } });
  const run = await ctl(['traces', 'check-proof', fresh.id]);
  t.equal(run.code, 0, run.stderr);
  t.equal(run.stderr, '', 'no key was needed, so no warning');
  t.match(checkRows(run.stdout), { checkpoint_signature: ['pending', 'pending'], inclusion: ['pending', 'pending'] });
  t.match(run.stdout, /^Inclusion pending: no checkpoint covers this trace yet/m);
  traces.push(fresh);
  await gw.gateway.checkpointNow();
  t.same(checkRows((await ctl(['traces', 'check-proof', fresh.id, '--vkey', vkey])).stdout).inclusion, ['ok', 'ok']);
});

t.test('check-proof: bad input exits 2 before any request; an unknown trace 1', async (t) => {
  const cases = [
    [['nope'], /^ID: /],
    [[bySeq(1).id, '--vkey', 'garbage'], /^--vkey: not a verifier key/],
  ] as const;
  const runs = await Promise.all(cases.map(([args]) => ctl(['traces', 'check-proof', ...args, '--json'], { GATEWAY_URL: NOWHERE })));
  cases.forEach(([, message], i) => {
    t.equal(runs[i]!.code, 2, runs[i]!.stderr);
    t.match(runs[i]!.json, { error: { code: 'usage_error', message } });
  });
  const unknown = await ctl(['traces', 'check-proof', '00000000-0000-4000-8000-000000000000']);
  t.equal(unknown.code, 1);
  t.match(unknown.stderr, REQUEST_ID_LINE('not_found'));
});

t.test('check-proof: a key the daemon does not sign with fails locally, and the CLI says the server disagrees', async (t) => {
  const other = verifierKey({ name: 'governance-gateway.local', publicKey: generateKeyPairSync('ed25519').publicKey });
  const run = await ctl(['traces', 'check-proof', bySeq(3).id, '--vkey', other]);
  t.equal(run.code, 1);
  t.match(run.stdout, /: NOT INTACT$/m);
  t.same(checkRows(run.stdout).checkpoint_signature, ['ok', 'failed']);
  t.match(
    run.stdout,
    /^First failing step: checkpoint_signature \(checkpoint_signature_invalid: checkpoint note: no_signature\), found by the local check\.$/m,
  );
  t.match(run.stdout, /^The local check disagrees with the server: checkpoint_signature is failed locally, ok by the server\.$/m);
});

// A daemon that lies: verify-proof answers rewritten on their way to the CLI.
const lying = await startRewritingProxy(t, gw.url, '/api/v1/verify-proof');
const PROXY = lying.url;

t.test('check-proof: a bundle tampered in transit is caught locally, naming the failing step', async (t) => {
  const id = bySeq(5).id;
  const other = bySeq(6).id;
  const otherReport = (await gw.api('POST', '/api/v1/verify-proof', { body: { trace_id: other } })).body;
  const flip = (b64: string) => {
    const b = Buffer.from(b64, 'base64');
    b[0] ^= 1;
    return b.toString('base64');
  };
  // biome-ignore lint/suspicious/noExplicitAny: each case edits a different part of the bundle's JSON
  const cases: [string, (r: any) => any, string, RegExp][] = [
    [
      'a header field rewritten',
      (r) => ({ ...r, header: { ...r.header, reason: 'rewritten' } }),
      'integrity_hash',
      /integrity_hash \(integrity_hash_mismatch: /,
    ],
    [
      'an inclusion path node changed',
      (r) => ({ ...r, merkle: { ...r.merkle, inclusion_path: [flip(r.merkle.inclusion_path[0]), ...r.merkle.inclusion_path.slice(1)] } }),
      'inclusion',
      /inclusion \(inclusion_proof_invalid: /,
    ],
    [
      'another root with its note',
      (r) => ({
        ...r,
        merkle: { ...r.merkle, root: flip(r.merkle.root), checkpoint: r.merkle.checkpoint.replace(r.merkle.root, flip(r.merkle.root)) },
      }),
      'checkpoint_signature',
      /checkpoint_signature \(checkpoint_signature_invalid: checkpoint note: bad_signature\)/,
    ],
    [
      'the proof of another trace',
      () => otherReport,
      'integrity_hash',
      new RegExp(`integrity_hash \\(trace_id_mismatch: the server answered with the proof of trace ${other}\\)`),
    ],
    [
      'a malformed path',
      (r) => ({ ...r, merkle: { ...r.merkle, inclusion_path: 'AAAA' } }),
      'checkpoint_signature',
      /checkpoint_signature \(bundle_malformed: the proof bundle is malformed at merkle\.inclusion_path\)/,
    ],
  ];
  for (const [what, change, step, failure] of cases) {
    lying.rewrite = change;
    const run = await ctl(['traces', 'check-proof', id, '--vkey', vkey], { GATEWAY_URL: PROXY });
    t.equal(run.code, 1, `${what}: ${run.stderr}`);
    t.match(run.stdout, /: NOT INTACT$/m, what);
    t.equal(checkRows(run.stdout)[step]?.[1], 'failed', `${what}: ${step} fails locally`);
    t.match(run.stdout, new RegExp(`^First failing step: ${failure.source}.*, found by the local check\\.$`, 'm'), what);
    t.match(
      run.stdout,
      new RegExp(`^The local check disagrees with the server: ${step} is failed locally, ok by the server\\.$`, 'm'),
      what,
    );
  }
  lying.rewrite = cases[0]![1];
  const json = await ctl(['traces', 'check-proof', id, '--vkey', vkey, '--json'], { GATEWAY_URL: PROXY });
  t.equal(json.code, 1);
  t.match(json.json, {
    intact: false,
    first_failure: { step: 'integrity_hash', by: 'local', reason: 'integrity_hash_mismatch' },
    server: { intact: true },
  });
  t.same(
    json.json.disagreements.map((d: { step: string }) => d.step),
    ['integrity_hash', 'checkpoint_signature', 'inclusion'],
    'the steps after a failed hash are not checked locally, which the server did check',
  );
  lying.rewrite = (r) => r;
  t.equal(
    (await ctl(['traces', 'check-proof', id, '--vkey', vkey], { GATEWAY_URL: PROXY })).code,
    0,
    'untouched through the proxy: intact',
  );
});

t.test('check-proof: rows tampered in the database fail on the server and locally alike', async (t) => {
  await tamper(gw.db, 10, false);
  const edited = await ctl(['traces', 'check-proof', bySeq(10).id, '--vkey', vkey]);
  t.equal(edited.code, 1);
  t.same(checkRows(edited.stdout).integrity_hash, ['failed', 'failed']);
  t.match(
    edited.stdout,
    /^First failing step: integrity_hash \(integrity_hash_mismatch: .+\), found by the server and the local check\.$/m,
  );
  t.notMatch(edited.stdout, /disagrees/);

  await tamper(gw.db, 12, true);
  const rehashed = await ctl(['traces', 'check-proof', bySeq(12).id, '--vkey', vkey, '--json']);
  t.equal(rehashed.code, 1);
  t.match(rehashed.json, {
    intact: false,
    first_failure: { step: 'next_link', by: 'server', reason: 'next_link_broken' },
    disagreements: [],
  });
  t.equal(rehashed.json.local.checks.inclusion, 'failed', 'the signed tree does not hold the rewritten row, locally either');

  const newest = traces.reduce((a, b) => (a.sequenceNum > b.sequenceNum ? a : b));
  await tamper(gw.db, newest.sequenceNum, true);
  const last = await ctl(['traces', 'check-proof', newest.id, '--vkey', vkey]);
  t.equal(last.code, 1);
  t.same(checkRows(last.stdout).inclusion, ['failed', 'failed']);
  t.match(last.stdout, /^First failing step: inclusion \(inclusion_proof_invalid: .+\), found by the server and the local check\.$/m);
});
