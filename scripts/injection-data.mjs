// The injection classifier's data, shared by train-injection.mjs and eval-injection.mjs: the rows of
// ../shared/datasets/injection-train.jsonl plus scripts/injection-extra.jsonl (written for this
// project), and the development split, a fixed rule so the trainer and the evaluation agree.
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const DATASET = path.resolve(ROOT, process.env.INJECTION_DATASET ?? '../shared/datasets/injection-train.jsonl');
export const EXTRA = path.join(ROOT, 'scripts/injection-extra.jsonl');
/**
 * Rows written for this project (jailbreak templates, system-prompt extraction, system manipulation,
 * fingerprinting, hard benign rows, and attacks and benign rows in de, fr, es, it, nl, pl): training
 * only, never in the development split, so adding them leaves the split and its figures comparable.
 */
export const WRITTEN = path.join(ROOT, 'scripts/injection-written.jsonl');

/** Documented in the weights file and README: every 5th row of each stratum, ordered by SHA-256 of the text. */
export const SPLIT_RULE =
  'stratum = source name (before ":") + "/" + kind; within a stratum rows are ordered by SHA-256 of the text; ranks 0, 5, 10, ... (20%) are the development split, the rest train';

/** Attack kinds the prompt classifier is not trained on: ordinary tasks whose danger is where they appear (a document, not the prompt). */
export const NOT_TRAINED = new Set(['indirect-text', 'indirect-code']);

const readJsonl = (file) =>
  fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l));

// Benign code: the project's own sources (daemon/ and cli/, but not the detectors, whose rules and
// comments quote attacks) at a pinned commit, so the training data does not drift with the tree, in
// chunks of 12 lines. The public benign rows hold little code, and without it the model learns that
// code means attack.
const CODE_COMMIT = 'a1807bc0625a85d106fca429d9e1f570d780729a';
const CODE_DIRS = ['daemon', 'cli'];
const CHUNK_LINES = 12;
const MAX_CODE_ROWS = 600;
const git = (...args) => execFileSync('git', args, { cwd: ROOT, encoding: 'utf8', maxBuffer: 64 << 20 });
function codeRows() {
  const files = git('ls-tree', '-r', '--name-only', CODE_COMMIT, ...CODE_DIRS)
    .split('\n')
    .filter((f) => f.endsWith('.ts') && !f.includes('detectors'))
    .sort();
  const chunks = [];
  for (const file of files) {
    const lines = git('show', `${CODE_COMMIT}:${file}`).split('\n');
    for (let i = 0; i < lines.length; i += CHUNK_LINES) {
      const text = lines.slice(i, i + CHUNK_LINES).join('\n');
      if (text.trim().length >= 80) chunks.push({ text, label: 'benign', kind: 'code', source: `project:${file}:${i + 1}` });
    }
  }
  const step = Math.max(1, Math.ceil(chunks.length / MAX_CODE_ROWS));
  return chunks.filter((_, i) => i % step === 0);
}

export const stratum = (row) => `${row.source.split(':')[0]}/${row.kind}`;

/** All rows, each with `dev` (true for the development split) and `stratum`. */
export function loadRows() {
  if (!fs.existsSync(DATASET)) throw new Error(`dataset not found: ${DATASET} (set INJECTION_DATASET)`);
  const rows = [...readJsonl(DATASET), ...readJsonl(EXTRA), ...codeRows()];
  const groups = new Map();
  for (const row of rows) {
    if (typeof row.text !== 'string' || (row.label !== 'attack' && row.label !== 'benign'))
      throw new Error(`bad row: ${JSON.stringify(row).slice(0, 200)}`);
    row.stratum = stratum(row);
    row.hash = crypto.createHash('sha256').update(row.text).digest('hex');
    if (!groups.has(row.stratum)) groups.set(row.stratum, []);
    groups.get(row.stratum).push(row);
  }
  for (const group of groups.values()) {
    group.sort((a, b) => (a.hash < b.hash ? -1 : a.hash > b.hash ? 1 : 0));
    group.forEach((row, i) => (row.dev = i % 5 === 0));
  }
  const written = readJsonl(WRITTEN);
  for (const row of written) {
    if (typeof row.text !== 'string' || (row.label !== 'attack' && row.label !== 'benign'))
      throw new Error(`bad row: ${JSON.stringify(row).slice(0, 200)}`);
    row.stratum = stratum(row);
    row.dev = false;
  }
  return [...rows, ...written];
}
