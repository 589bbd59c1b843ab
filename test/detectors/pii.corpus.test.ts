import t from 'tap';
import { fileURLToPath } from 'node:url';
import { piiDetector } from '../../daemon/detectors/pii/index.js';
import { formatScore, loadCorpus, score } from './corpus/score.js';

const CORPUS = fileURLToPath(new URL('../../../test/detectors/corpus/pii.jsonl', import.meta.url));
// Precision is what the contract fixes (a false positive rewrites a user's prompt). The recall floor
// sits below it on purpose: the context-dependent entities (bare digit strings, NHS, Ausweis) are
// meant to miss when no word says what the number is, and the corpus includes such phrasings.
const MIN_PRECISION = 0.95;
const MIN_RECALL = 0.9;

t.test('pii corpus: precision and recall per entity', async (t) => {
  const cases = loadCorpus(CORPUS);
  t.ok(cases.length >= 200, `${cases.length} cases`);
  t.ok(cases.filter((c) => c.expect.length === 0).length >= 100, 'at least 100 negatives');
  const config = piiDetector.parseConfig(undefined);
  const result = score(cases, (text) => piiDetector.detect(text, config));
  t.comment('\n' + formatScore(result));
  for (const m of result.misses) t.comment(`${m.kind} ${m.id} ${m.entity} ${JSON.stringify(m.value)}`);
  for (const [entity, tally] of Object.entries(result.entities)) {
    t.ok(tally.precision >= MIN_PRECISION, `${entity} precision ${tally.precision.toFixed(3)} >= ${MIN_PRECISION}`);
    t.ok(tally.recall >= MIN_RECALL, `${entity} recall ${tally.recall.toFixed(3)} >= ${MIN_RECALL}`);
  }
  t.ok(result.overall.precision >= MIN_PRECISION, `overall precision ${result.overall.precision.toFixed(3)}`);
  t.ok(result.overall.recall >= MIN_RECALL, `overall recall ${result.overall.recall.toFixed(3)}`);
});
