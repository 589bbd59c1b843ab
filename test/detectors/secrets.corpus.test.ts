import t from 'tap';
import { fileURLToPath } from 'node:url';
import { secretsDetector } from '../../daemon/detectors/secrets.js';
import { compileSecretRules } from '../../daemon/detectors/secret-warm.js';
import { formatScore, loadCorpus, score } from './corpus/score.js';

const CORPUS = fileURLToPath(new URL('../../../test/detectors/corpus/secrets.jsonl', import.meta.url));
// Precision is what the contract fixes: a false positive blocks a user's prompt. Recall has a floor
// as high: every positive is a key in a format its rule was written for (fake, valid-looking), so a
// miss is a broken rule, not a hard case; the hard cases are the negatives (documentation keys,
// placeholders, hashes, identifiers, images).
const MIN_PRECISION = 0.95;
const MIN_RECALL = 0.95;

t.test('secrets corpus: precision and recall per entity', { timeout: 180_000 }, async (t) => {
  compileSecretRules();
  const cases = loadCorpus(CORPUS);
  t.ok(cases.length >= 80, `${cases.length} cases`);
  t.ok(cases.filter((c) => c.expect.length === 0).length >= 40, 'at least 40 negatives');
  const config = secretsDetector.parseConfig(undefined);
  const result = score(cases, (text) => secretsDetector.detect(text, config));
  t.comment('\n' + formatScore(result));
  for (const m of result.misses) t.comment(`${m.kind} ${m.id} ${m.entity} ${JSON.stringify(m.value)}`);
  for (const [entity, tally] of Object.entries(result.entities)) {
    t.ok(tally.precision >= MIN_PRECISION, `${entity} precision ${tally.precision.toFixed(3)} >= ${MIN_PRECISION}`);
  }
  t.ok(result.overall.precision >= MIN_PRECISION, `overall precision ${result.overall.precision.toFixed(3)}`);
  t.ok(result.overall.recall >= MIN_RECALL, `overall recall ${result.overall.recall.toFixed(3)}`);
});
