// The shipped thresholds against the development split (issue 26): each benign kind stays within
// BLOCK <= 0.3 % and FLAG-or-BLOCK <= 2 %, the weights file's per-kind figures are what the model
// really does at those thresholds, and the model card in docs/verify.md quotes the same thresholds.
// The rows written for this project are in the repository and always rescored; the shared public
// dataset (../shared/datasets, or INJECTION_DATASET) is rescored whole when present.
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { DATA_MODEL_PATH, MODEL_PATH, type InjectionModel } from '../../daemon/detectors/injection-model-file.js';
import { scoreModel } from '../../daemon/detectors/injection-model.js';
import { shippedDataModel, shippedModel } from '../../daemon/detectors/injection-weights.js';
import { REPORTING_CUES } from '../../daemon/detectors/injection-rules.js';

interface Figure {
  label: 'attack' | 'benign';
  rows: number;
  block: number;
  flag: number;
}
interface Row {
  text: string;
  label: string;
  stratum: string;
  dev: boolean;
  channel?: string;
}
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const dataset = process.env.INJECTION_DATASET ?? `${ROOT}../shared/datasets/injection-train.jsonl`;
// The prompt head is neither trained nor calibrated on attacks inside data (scripts/train-injection.mjs).
const HEADS = [
  { name: 'prompt', path: MODEL_PATH, model: shippedModel(), keeps: (r: Row) => !(r.label === 'attack' && r.channel === 'data') },
  { name: 'data', path: DATA_MODEL_PATH, model: shippedDataModel(), keeps: (_: Row) => true },
];

/** The model's verdict counts over development rows at its shipped thresholds. */
function rescore(rows: readonly Row[], model: InjectionModel): Map<string, Figure> {
  const out = new Map<string, Figure>();
  for (const r of rows) {
    const f = out.get(r.stratum) ?? { label: r.label as Figure['label'], rows: 0, block: 0, flag: 0 };
    const score = scoreModel(r.text, model, REPORTING_CUES).score;
    f.rows++;
    if (score >= model.thresholds.block) f.block++;
    else if (score >= model.thresholds.flag) f.flag++;
    out.set(r.stratum, f);
  }
  return out;
}

for (const head of HEADS) {
  const figures = (JSON.parse(fs.readFileSync(head.path, 'utf8')) as { data: { devFigures: Record<string, Figure> } }).data.devFigures;

  t.test(`${head.name} head: every benign kind of the development split is within the bars at the shipped thresholds`, async (t) => {
    const benign = Object.entries(figures).filter(([, f]) => f.label === 'benign');
    t.ok(benign.length >= 10, `${benign.length} benign kinds`);
    for (const [kind, f] of benign) {
      t.ok(f.block <= Math.floor(0.003 * f.rows), `${kind}: ${f.block} of ${f.rows} blocked`);
      t.ok(f.block + f.flag <= Math.floor(0.02 * f.rows), `${kind}: ${f.block + f.flag} of ${f.rows} flagged or blocked`);
    }
  });

  t.test(`${head.name} head: the weights file's figures for the rows written here are what it scores`, async (t) => {
    const own = fs
      .readFileSync(`${ROOT}scripts/injection-own.jsonl`, 'utf8')
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => JSON.parse(l) as Row & { source: string; kind: string })
      .filter((r) => r.dev && head.keeps(r))
      .map((r) => ({ ...r, stratum: `${r.source.split(':')[0]}/${r.kind}` }));
    const got = rescore(own, head.model);
    t.ok(got.size >= 5, `${got.size} kinds`);
    for (const [kind, f] of got) t.same(f, figures[kind], kind);
  });

  t.test(
    `${head.name} head: with the shared dataset present, every kind of the development split reproduces`,
    { skip: !fs.existsSync(dataset) && `no ${dataset}` },
    async (t) => {
      const path = `${ROOT}scripts/injection-data.mjs`;
      const { loadRows } = (await import(path)) as { loadRows: () => Row[] };
      const got = rescore(
        loadRows().filter((r) => r.dev && head.keeps(r)),
        head.model,
      );
      t.same(Object.fromEntries([...got].sort()), Object.fromEntries(Object.entries(figures).sort()));
    },
  );
}

t.test('the model card quotes the shipped thresholds', async (t) => {
  const card = fs.readFileSync(`${ROOT}docs/verify.md`, 'utf8');
  for (const head of HEADS) {
    t.match(card, `${head.name} head: BLOCK at ${head.model.thresholds.block}`);
    t.match(card, `${head.name} head: FLAG at ${head.model.thresholds.flag}`);
  }
});
