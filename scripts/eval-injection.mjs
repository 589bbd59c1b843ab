#!/usr/bin/env node
// Scores, on the development split, the shipped injection classifier's two heads alone, the verify pipeline's
// (its default injection policy only: personal data in documents is another detector's business)
// pure stages (segments, a new project's default policies, combine; a prompt as the API sends it, a
// document as extracted_text under a plain prompt, where the detector reads it with origin 'data'),
// and the MCP results path (every row as the text of a tool result under the built-in content rules,
// origin 'data': BLOCK withholds it, FLAG records it). Rows that are documents (BIPIA documents and
// indirect attacks, rows with channel 'data') go to verify as data. Trains nothing.
// Prints, per kind (source/kind), rows, BLOCK and FLAG-or-BLOCK rates: recall for attacks, the
// false-positive rate for benign rows.
// Run: npm run eval (builds first). --verbose lists the misses and false positives. --onnx DIR also
// loads an ONNX model directory (as GATEWAY_INJECTION_MODEL_DIR would), scores it alone at the default
// policy thresholds, and hands its probabilities to the pipeline as the daemon does.
import { injectionDetector } from '../dist/daemon/detectors/injection.js';
import { scoreModel } from '../dist/daemon/detectors/injection-model.js';
import { shippedDataModel, shippedModel } from '../dist/daemon/detectors/injection-weights.js';
import { DETECTORS } from '../dist/daemon/detectors/index.js';
import { REPORTING_CUES } from '../dist/daemon/detectors/injection-rules.js';
import { DEFAULT_POLICIES } from '../dist/daemon/verify/prompt-policies.js';
import { combine } from '../dist/daemon/verify/stages/combine.js';
import { scan } from '../dist/daemon/verify/stages/detection.js';
import { segmentsOf } from '../dist/daemon/verify/stages/segments.js';
import { contentRules } from '../dist/daemon/mcp/content/effective.js';
import { inspect, strongest } from '../dist/daemon/mcp/content/inspect.js';
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
const dataModel = shippedDataModel();
const config = injectionDetector.parseConfig(undefined);
const level = (score, t) => (score >= t.block ? 'BLOCK' : score >= t.flag ? 'FLAG' : 'PASS');

const policies = DEFAULT_POLICIES.filter((p) => p.detector === 'injection').map((p) => ({
  ...p,
  id: p.name,
  enabled: true,
  parsedConfig: DETECTORS[p.detector].parseConfig(p.config),
}));
const DECISION = { BLOCKED: 'BLOCK', PENDING_APPROVAL: 'BLOCK', FLAGGED: 'FLAG', MODIFIED: 'PASS', PASSED: 'PASS' };

/** The MCP results path with the built-in content rules (no project policy): a tool result of one text item, read as data. */
const mcpRules = contentRules([], 'eval-server', 'eval-tool', 'results').filter((r) => r.detector === 'injection');
const MCP = { BLOCK: 'BLOCK', REDACT: 'PASS', FLAG: 'FLAG' };

/** Verdicts of one system on a row: 'BLOCK' | 'FLAG' | 'PASS' (a pipeline that only masks personal data passes). */
const systems = {
  // The two heads alone: the prompt head (what a user sends; not trained on attacks inside data) and the data head.
  'prompt head': (text) => level(scoreModel(text, model, REPORTING_CUES).score, model.thresholds),
  'data head': (text) => level(scoreModel(text, dataModel, REPORTING_CUES).score, dataModel.thresholds),
  verify: (text, data) => {
    const request = data ? { prompt: DATA_PROMPT, extracted_text: text } : { prompt: text };
    const segments = segmentsOf(request, [], null);
    const scores = onnx ? { ok: true, bySegment: new Map(segments.map((s) => [s.id, onnx.get(s.text)])) } : undefined;
    const scanned = scan(policies, segments, 10_000, scores);
    if (!scanned.ok) return 'BLOCK';
    return DECISION[combine(scanned.hits, 'api').decision];
  },
  // Every row as what a tool returned: withheld (BLOCK), recorded (FLAG) or passed.
  mcp: (text) => {
    const seen = inspect({ content: [{ type: 'text', text }] }, mcpRules, 'data', 10_000);
    if (!seen.ok) return 'BLOCK';
    return MCP[strongest(seen.findings)] ?? 'PASS';
  },
};

/** Documents: what an attachment or extracted_text carries. */
const isData = (r) => r.channel === 'data' || NOT_TRAINED.has(r.kind) || r.kind === 'document';
const dev = loadRows().filter((r) => r.dev);
console.log(`development split: ${dev.length} rows (${SPLIT_RULE})`);
console.log(
  `prompt head thresholds: block ${model.thresholds.block}, flag ${model.thresholds.flag}; data head: block ${dataModel.thresholds.block}, flag ${dataModel.thresholds.flag}; not trained on: ${[...NOT_TRAINED].join(', ')}\n`,
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
const pct = (n, d) => (d === 0 ? '    -  ' : `${((100 * n) / d).toFixed(1).padStart(6)}%`);
const HEADER =
  '  kind (source/kind)                        label    rows  BLOCK  FLAG  PASS    BLOCK%  BLOCK|FLAG%   (attacks: recall; benign: false positives)';
/** Per stratum: rows and verdict counts, and the rate lines the issue asks for (recall and false-positive rate, BLOCK and FLAG-or-BLOCK). */
function report(name, verdict) {
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
      console.log(`  ${name} ${r.label} ${v} ${r.stratum}${r.lang ? ` ${r.lang}` : ''}: ${JSON.stringify(r.text.slice(0, 200))}`);
  }
  console.log(`== ${name}`);
  console.log(HEADER);
  const line = (key, s) =>
    console.log(
      `  ${key.padEnd(40)}  ${s.label.padEnd(7)} ${String(s.n).padStart(4)} ${String(s.BLOCK).padStart(6)} ${String(s.FLAG).padStart(5)} ${String(s.PASS).padStart(5)}  ${pct(s.BLOCK, s.n)}  ${pct(s.BLOCK + s.FLAG, s.n)}`,
    );
  for (const label of ['benign', 'attack']) for (const [key, s] of [...strata].sort()) if (s.label === label) line(key, s);
  line('all benign', { label: 'benign', ...totals.benign });
  line('all attacks', { label: 'attack', ...totals.attack });
  console.log('');
}
for (const [name, verdict] of Object.entries(systems)) report(name, verdict);
