#!/usr/bin/env node
// Scores the shipped injection classifier, the full injection detector (rules, hidden-instruction
// decoding and the classifier, default policy thresholds) and the verify pipeline's pure stages
// (segments, policies with a new project's default policies, combine; the prompt as sent by the API)
// on the development split; trains nothing. Rows that are documents (BIPIA indirect-text and
// indirect-code attacks, benign `document` rows) are scored as data the model reads: the detector gets
// origin 'data', the pipeline gets them as extracted_text under a plain prompt.
// Prints recall per stratum (source/kind), the benign false-positive rate and the confusion.
// Run: npm run eval (builds first). --verbose lists the misses and false positives. --onnx DIR also
// loads an ONNX model directory (as GATEWAY_INJECTION_MODEL_DIR would), scores it alone at the default
// policy thresholds, and hands its probabilities to the detector and the pipeline as the daemon does.
import { injectionDetector, injectionLevel } from '../dist/daemon/detectors/injection.js';
import { scoreModel, shippedModel } from '../dist/daemon/detectors/injection-model.js';
import { DETECTORS } from '../dist/daemon/detectors/index.js';
import { REPORTING_CUES } from '../dist/daemon/detectors/injection-rules.js';
import { DEFAULT_POLICIES } from '../dist/daemon/verify/policies.js';
import { combine } from '../dist/daemon/verify/stages/combine.js';
import { scan } from '../dist/daemon/verify/stages/detection.js';
import { segmentsOf } from '../dist/daemon/verify/stages/segments.js';
import { NOT_TRAINED, SPLIT_RULE, loadRows } from './injection-data.mjs';

const verbose = process.argv.includes('--verbose');
const onnxAt = process.argv.indexOf('--onnx');
const onnxDir = onnxAt >= 0 ? process.argv[onnxAt + 1] : undefined;
if (onnxAt >= 0 && (onnxDir === undefined || onnxDir.startsWith('--'))) {
  console.error('usage: npm run eval -- [--verbose] [--onnx MODEL_DIR]');
  process.exit(2);
}
/** The ONNX model's probability by text, when --onnx is given. */
let onnx = null;
const DATA_PROMPT = 'Summarise this document for me.';
const model = shippedModel();
const config = injectionDetector.parseConfig(undefined);
const level = (score, t) => (score >= t.block ? 'BLOCK' : score >= t.flag ? 'FLAG' : 'PASS');

const policies = DEFAULT_POLICIES.map((p) => ({
  ...p,
  id: p.name,
  enabled: true,
  parsedConfig: DETECTORS[p.detector].parseConfig(p.config),
}));
const DECISION = { BLOCKED: 'BLOCK', PENDING_APPROVAL: 'BLOCK', FLAGGED: 'FLAG', MODIFIED: 'PASS', PASSED: 'PASS' };

/** Verdicts of one system on a row: 'BLOCK' | 'FLAG' | 'PASS' (a pipeline that only masks personal data passes). */
const systems = {
  model: (text) => level(scoreModel(text, model, REPORTING_CUES).score, model.thresholds),
  detector: (text, data) => {
    const [f] = injectionDetector.detect(text, config, { origin: data ? 'data' : 'prompt', modelScore: onnx?.get(text) });
    if (f === undefined) return 'PASS';
    return injectionLevel(f.score, config) === 'high' ? 'BLOCK' : 'FLAG';
  },
  pipeline: (text, data) => {
    const request = data ? { prompt: DATA_PROMPT, extracted_text: text } : { prompt: text };
    const segments = segmentsOf(request, [], null);
    const scores = onnx ? { ok: true, bySegment: new Map(segments.map((s) => [s.id, onnx.get(s.text)])) } : undefined;
    const scanned = scan(policies, segments, 10_000, scores);
    if (!scanned.ok) return 'BLOCK';
    return DECISION[combine(scanned.hits, 'api').decision];
  },
};

/** Documents: what an attachment or extracted_text carries. */
const isData = (r) => NOT_TRAINED.has(r.kind) || r.kind === 'document';
const dev = loadRows().filter((r) => r.dev);
console.log(`development split: ${dev.length} rows (${SPLIT_RULE})`);
console.log(
  `model thresholds: block ${model.thresholds.block}, flag ${model.thresholds.flag}; not trained on: ${[...NOT_TRAINED].join(', ')}\n`,
);
if (onnxDir !== undefined) {
  const { loadOnnxClassifier } = await import('../dist/daemon/models/onnx-classifier.js');
  const classifier = await loadOnnxClassifier(onnxDir);
  const texts = [...new Set([...dev.map((r) => r.text), DATA_PROMPT])];
  const started = performance.now();
  const scores = await classifier.score(texts, 24 * 3600 * 1000);
  const ms = performance.now() - started;
  onnx = new Map(texts.map((t, i) => [t, scores[i]]));
  systems.onnx = (text) => level(onnx.get(text), { block: config.block_threshold, flag: config.flag_threshold });
  console.log(`onnx model ${onnxDir} (${classifier.labels.join(', ')}): ${texts.length} texts in ${(ms / 1000).toFixed(1)} s\n`);
  await classifier.close();
}
const pct = (n, d) => (d === 0 ? '   -  ' : `${((100 * n) / d).toFixed(1).padStart(5)}%`);
for (const [name, verdict] of Object.entries(systems)) {
  const strata = new Map();
  const totals = { attack: { n: 0, BLOCK: 0, FLAG: 0, PASS: 0 }, benign: { n: 0, BLOCK: 0, FLAG: 0, PASS: 0 } };
  for (const r of dev) {
    const v = verdict(r.text, isData(r));
    const s = strata.get(r.stratum) ?? { label: r.label, n: 0, BLOCK: 0, FLAG: 0, PASS: 0 };
    s.n++;
    s[v]++;
    strata.set(r.stratum, s);
    totals[r.label].n++;
    totals[r.label][v]++;
    if (verbose && (r.label === 'attack') === (v === 'PASS'))
      console.log(`  ${name} ${r.label} ${v} ${r.stratum}: ${JSON.stringify(r.text.slice(0, 160))}`);
  }
  console.log(`== ${name}`);
  console.log('  stratum                                   label    rows  BLOCK  FLAG  PASS   recall (blocked) / false positives');
  for (const [key, s] of [...strata].sort()) {
    const rate = s.label === 'attack' ? `${pct(s.BLOCK + s.FLAG, s.n)} (${pct(s.BLOCK, s.n)})` : `${pct(s.BLOCK + s.FLAG, s.n)} FP`;
    console.log(
      `  ${key.padEnd(40)}  ${s.label.padEnd(7)} ${String(s.n).padStart(4)} ${String(s.BLOCK).padStart(6)} ${String(s.FLAG).padStart(5)} ${String(s.PASS).padStart(5)}   ${rate}`,
    );
  }
  const a = totals.attack;
  const b = totals.benign;
  const trained = dev.filter((r) => r.label === 'attack' && !NOT_TRAINED.has(r.kind));
  const caught = trained.filter((r) => verdict(r.text, isData(r)) !== 'PASS').length;
  console.log(
    `  attacks: recall ${pct(a.BLOCK + a.FLAG, a.n)}, blocked ${pct(a.BLOCK, a.n)} of ${a.n}; excluding ${[...NOT_TRAINED].join('/')}: recall ${pct(caught, trained.length)} of ${trained.length}`,
  );
  const docs = dev.filter(isData);
  const docFP = docs.filter((r) => r.label === 'benign' && verdict(r.text, true) !== 'PASS').length;
  const docN = docs.filter((r) => r.label === 'benign').length;
  for (const kind of NOT_TRAINED) {
    const rows = docs.filter((r) => r.kind === kind);
    const hit = rows.filter((r) => verdict(r.text, true) !== 'PASS').length;
    console.log(`  as data: ${kind} recall ${pct(hit, rows.length)} of ${rows.length}`);
  }
  console.log(`  as data: benign documents flagged or blocked ${pct(docFP, docN)} of ${docN}`);
  console.log(`  benign: false positives ${pct(b.BLOCK + b.FLAG, b.n)} (blocked ${b.BLOCK}, flagged ${b.FLAG}) of ${b.n}\n`);
}
