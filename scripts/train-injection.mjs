#!/usr/bin/env node
// Trains one head of the prompt-injection classifier and writes daemon/detectors/injection-model.json
// (the prompt head) or, with --head data, injection-model-data.json (the data head):
// L2-regularised logistic regression, mini-batch Adagrad with a fixed seed, over the hashed features
// of daemon/detectors/injection-model-features.ts (imported from dist/, so trainer and daemon share
// one feature code). Thresholds are calibrated on the development split (scripts/injection-data.mjs).
// Run: npm run train:injection (builds first).
import fs from 'node:fs';
import { deflateRawSync } from 'node:zlib';
import { FEATURES, WINDOWS, textFeatures, tokenize } from '../dist/daemon/detectors/injection-model-features.js';
import { DATA_MODEL_PATH, MODEL_PATH, parseModel } from '../dist/daemon/detectors/injection-model-file.js';
import { scoreModel } from '../dist/daemon/detectors/injection-model.js';
import { REPORTING_CUES } from '../dist/daemon/detectors/injection-rules.js';
import { DATASET, NOT_TRAINED, SPLIT_RULE, loadRows } from './injection-data.mjs';

const SEED = 17;
const UNIT_ATTACK = Number(process.env.UNIT_ATTACK ?? 3);
// Off by default: at 0.1 it cut false positives on code but flagged short honest requests ("ignore my last message").
const UNIT_WEIGHT = Number(process.env.UNIT_WEIGHT ?? 0);
const EPOCHS = Number(process.env.EPOCHS ?? 12);
const RATE = 0.5;
const L2 = Number(process.env.L2 ?? 1e-3);
/** The bars of issue 26, per benign kind of the development split. */
const BLOCK_FPR = 0.003;
const FLAG_FPR = 0.02;
// Floors: the benign development rows are mostly short synthetic questions, easier than real traffic.
const MIN_FLAG = 0.5;
const MIN_BLOCK = 0.8;

/** The text of each sentence unit of at least 3 words. */
function unitTexts(text) {
  const { starts, ends, units } = tokenize(text);
  const out = [];
  for (let u = 0; u + 1 < units.length; u++)
    if (units[u + 1] - units[u] >= 3) out.push(text.slice(starts[units[u]], ends[units[u + 1] - 1]));
  return out;
}

function mulberry32(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Sparse example: buckets and values scaled by 1/sqrt(feature count), as scoreModel scores a window. */
function example(text) {
  const counts = textFeatures(text);
  let total = 0;
  for (const c of counts.values()) total += c;
  const norm = 1 / Math.sqrt(Math.max(1, total));
  return { idx: Int32Array.from(counts.keys()), val: Float64Array.from(counts.values(), (c) => c * norm) };
}

// Two heads over one feature space (issue 26): `prompt` (default) scores what a user sends and never
// sees the attacks that live inside data (their goals, "send the code to x@y", are ordinary requests
// from a user); `data` (--head data) scores what a tool returns or an attachment holds and learns
// those attacks too. Both calibrate on every benign kind.
const HEAD = process.argv.includes('--head') ? process.argv[process.argv.indexOf('--head') + 1] : 'prompt';
if (HEAD !== 'prompt' && HEAD !== 'data') throw new Error(`--head prompt|data, not ${HEAD}`);
const OUT = HEAD === 'data' ? DATA_MODEL_PATH : MODEL_PATH;
const dataAttack = (r) => r.label === 'attack' && r.channel === 'data';
const rows = loadRows();
const train = rows.filter((r) => !r.dev && !(r.label === 'attack' && NOT_TRAINED.has(r.kind)) && (HEAD === 'data' || !dataAttack(r)));
const dev = rows.filter((r) => r.dev && (HEAD === 'data' || !dataAttack(r)));
const attacks = train.filter((r) => r.label === 'attack').length;
const benign = train.length - attacks;
// Class weights so both classes weigh the same in the loss.
const classWeight = { attack: train.length / (2 * attacks), benign: train.length / (2 * benign) };
const examples = train.map((r) => ({ ...example(r.text), y: r.label === 'attack' ? 1 : 0, c: classWeight[r.label] }));
// Scoring reads windows of sentences, so the model also learns from them: every sentence unit of a
// benign row (benign throughout), and of an attack of at most UNIT_ATTACK units (short enough that
// each of its sentences is part of the attack), at weight UNIT_WEIGHT.
for (const r of UNIT_WEIGHT > 0 ? train : []) {
  const { units } = tokenize(r.text);
  if (units.length - 1 < 2 || (r.label === 'attack' && units.length - 1 > UNIT_ATTACK)) continue;
  for (const piece of unitTexts(r.text))
    examples.push({ ...example(piece), y: r.label === 'attack' ? 1 : 0, c: UNIT_WEIGHT * classWeight[r.label] });
}

const w = new Float64Array(FEATURES.buckets);
const g2 = new Float64Array(FEATURES.buckets).fill(1e-8);
let bias = 0;
let biasG2 = 1e-8;
const random = mulberry32(SEED);
const order = examples.map((_, i) => i);
for (let epoch = 0; epoch < EPOCHS; epoch++) {
  for (let i = order.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [order[i], order[j]] = [order[j], order[i]];
  }
  let loss = 0;
  for (const k of order) {
    const e = examples[k];
    let z = bias;
    for (let i = 0; i < e.idx.length; i++) z += w[e.idx[i]] * e.val[i];
    const p = 1 / (1 + Math.exp(-z));
    loss -= e.c * (e.y === 1 ? Math.log(p + 1e-12) : Math.log(1 - p + 1e-12));
    const err = e.c * (p - e.y);
    for (let i = 0; i < e.idx.length; i++) {
      const b = e.idx[i];
      const g = err * e.val[i] + L2 * w[b];
      g2[b] += g * g;
      w[b] -= (RATE * g) / Math.sqrt(g2[b]);
    }
    biasG2 += err * err;
    bias -= (RATE * err) / Math.sqrt(biasG2);
  }
  console.log(`epoch ${epoch + 1}: mean loss ${(loss / examples.length).toFixed(4)}`);
}

let max = 0;
for (const x of w) max = Math.max(max, Math.abs(x));
const scale = max / 127;
const q = Int8Array.from(w, (x) => Math.round(x / scale));
const weights = deflateRawSync(Buffer.from(q.buffer), { level: 9 }).toString('base64');

// Calibrate on the development split with the shipped (quantised) weights and max-window scoring,
// per benign kind (stratum): each threshold is the lowest (3 decimals) that keeps every benign kind's
// rate at or above it within its bar, BLOCK <= 0.3 % and FLAG-or-BLOCK <= 2 % (issue 26).
const model = parseModel(JSON.stringify(fileOf({ block: 1, flag: 1 })));
const byKind = new Map();
for (const r of dev.filter((r) => r.label === 'benign')) {
  const scores = byKind.get(r.stratum) ?? [];
  scores.push(scoreModel(r.text, model, REPORTING_CUES).score);
  byKind.set(r.stratum, scores);
}
/** Lowest threshold (3 decimals) with at most `rate` of each kind's benign development rows at or above it. */
const thresholdFor = (rate) => {
  let t = 0;
  for (const scores of byKind.values()) {
    scores.sort((a, b) => b - a);
    const allowed = Math.floor(rate * scores.length);
    t = Math.max(t, Math.ceil(((scores[allowed] ?? 0) + 1e-9) * 1000) / 1000);
  }
  return t;
};
const thresholds = { block: Math.max(MIN_BLOCK, thresholdFor(BLOCK_FPR)), flag: Math.max(MIN_FLAG, thresholdFor(FLAG_FPR)) };
console.log(
  `calibrated: block ${thresholdFor(BLOCK_FPR)}, flag ${thresholdFor(FLAG_FPR)}; shipped (with floors): ${JSON.stringify(thresholds)}`,
);

// What the model alone does on each kind of the development split at the shipped thresholds: the
// figures of the model card, which test/detectors/injection-model.calibration.test.ts reproduces.
const figures = {};
for (const r of dev) {
  const f = (figures[r.stratum] ??= { label: r.label, rows: 0, block: 0, flag: 0 });
  const score = scoreModel(r.text, model, REPORTING_CUES).score;
  f.rows++;
  if (score >= thresholds.block) f.block++;
  else if (score >= thresholds.flag) f.flag++;
}

function fileOf(thresholds) {
  const count = (set, label) => set.filter((r) => r.label === label).length;
  return {
    version: 1,
    head: HEAD,
    features: {
      buckets: FEATURES.buckets,
      hash: FEATURES.hash,
      words: FEATURES.words,
      chars: FEATURES.chars,
      maxWordChars: FEATURES.maxWordChars,
    },
    windows: WINDOWS,
    bias,
    scale,
    weights,
    thresholds,
    data: {
      origin: `${DATASET.split('/').slice(-3).join('/')} (Tensor Trust, BIPIA, promptshield; see its README and sources.json) and scripts/injection-extra.jsonl, scripts/injection-written.jsonl (training only) and scripts/injection-own.jsonl (issue 26, composed by scripts/injection-own.mjs), all written for this project; promptshield control rows relabelled benign`,
      trained: new Date().toISOString().slice(0, 10),
      split: SPLIT_RULE,
      notTrained: `attack kinds ${[...NOT_TRAINED].join(', ')}: ordinary tasks on their own, dangerous only inside data`,
      rows: {
        train: { attack: count(train, 'attack'), benign: count(train, 'benign') },
        dev: { attack: count(dev, 'attack'), benign: count(dev, 'benign') },
      },
      training: {
        model: 'logistic regression, L2',
        optimiser: 'Adagrad, batch 1',
        epochs: EPOCHS,
        rate: RATE,
        l2: L2,
        seed: SEED,
        quantisation: 'int8 times scale, raw deflate, base64',
      },
      calibration: { perKind: true, blockFpr: BLOCK_FPR, flagFpr: FLAG_FPR, floors: { block: MIN_BLOCK, flag: MIN_FLAG } },
      ...(thresholds.block < 1 ? { devFigures: figures } : {}),
    },
  };
}

fs.writeFileSync(OUT, `${JSON.stringify(fileOf(thresholds), null, 1)}\n`);
console.log(`wrote ${OUT} (${HEAD} head): ${fs.statSync(OUT).size} bytes`);
