// A trace's proof checked in this browser: the bundle from POST /api/v1/verify-proof, checked with
// Web Crypto (shared/proof-check-web.ts, the same steps as `gatewayctl traces check-proof`) against
// a verifier key the person pins, so the verdict does not rest on the server's word.
import { request } from './api.js';
import { fill, h } from './dom.js';
import type { BundleVerdict, CheckResult, ProofBundle } from '../shared/proof-bundle.js';
import { checkBundleWeb } from '../shared/proof-check-web.js';

const STEPS: [keyof BundleVerdict['checks'], string][] = [
  ['integrity_hash', 'Integrity hash (the stored fields hash to it, SHA-256)'],
  ['checkpoint_signature', 'Checkpoint signature (Ed25519, by the pinned key)'],
  ['inclusion', 'Inclusion proof (the trace is in the tree the checkpoint signed)'],
];
const WORDS: Record<CheckResult, string> = { ok: 'ok', failed: 'failed', pending: 'pending', not_checked: 'not checked' };

/** What the verdict means, in one sentence. */
export function verdictText(v: BundleVerdict): string {
  if (v.reason !== null) return `Does not verify: ${v.reason} (${v.detail ?? 'no detail'}).`;
  if (v.checks.inclusion === 'pending')
    return 'Pending: the integrity hash checks, but no checkpoint covers this trace yet. Check again after the next checkpoint.';
  return 'Verifies: this trace, as stored, is in the log signed by the pinned key.';
}

export function proofPanel(traceId: string): HTMLElement {
  const keyInput = h('textarea', { attrs: { id: 'pinned-vkey', rows: '2', spellcheck: 'false', autocomplete: 'off' } });
  const verdict = h('p', { class: 'verdict', attrs: { role: 'status', 'aria-live': 'polite' } }, 'Checking…');
  const steps = h('ul', { class: 'steps', attrs: { 'aria-label': 'Proof steps' } });
  const button = h('button', { attrs: { type: 'submit' } }, 'Check proof');
  const form = h(
    'form',
    { class: 'proof-key' },
    h('label', { attrs: { for: 'pinned-vkey' } }, 'Pinned verifier key'),
    keyInput,
    h(
      'p',
      { class: 'help' },
      'Filled with the key this gateway serves (GET /api/v1/ledger/checkpoint). A proof is only as good as the key you pin: paste the key you obtained out of band, not from this page.',
    ),
    h('div', { class: 'buttons' }, button),
  );

  const check = async () => {
    button.disabled = true;
    verdict.className = 'verdict';
    verdict.textContent = 'Checking…';
    try {
      const bundle = await request<ProofBundle>('POST', '/api/v1/verify-proof', { trace_id: traceId });
      const v = await checkBundleWeb(bundle, keyInput.value.trim());
      verdict.textContent = verdictText(v);
      verdict.classList.add(v.reason !== null ? 'failed' : v.checks.inclusion === 'pending' ? 'pending' : 'ok');
      fill(
        steps,
        ...STEPS.map(([k, label]) => h('li', { attrs: { 'data-step': k, 'data-result': v.checks[k] } }, `${label}: ${WORDS[v.checks[k]]}`)),
      );
    } catch (err) {
      verdict.classList.add('failed');
      verdict.textContent = `The proof could not be checked: ${err instanceof Error ? err.message : String(err)}`;
      fill(steps);
    } finally {
      button.disabled = false;
    }
  };
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void check();
  });
  request<{ vkey: string }>('GET', '/api/v1/ledger/checkpoint').then(
    (cp) => {
      keyInput.value = cp.vkey;
      void check();
    },
    () => {
      verdict.textContent = "The gateway's verifier key could not be read: paste the key you pinned.";
    },
  );
  return h(
    'section',
    { class: 'card proof', attrs: { 'aria-labelledby': 'proof-heading' } },
    h('h2', { attrs: { id: 'proof-heading' } }, 'Proof, checked in this browser'),
    verdict,
    steps,
    h('p', { class: 'help' }, 'Anchoring on chain (epoch and transaction) is checked by gatewayctl traces check-proof --rpc, not here.'),
    form,
  );
}
