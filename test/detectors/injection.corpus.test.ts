import t from 'tap';
import { fileURLToPath } from 'node:url';
import { injectionDetector } from '../../daemon/detectors/injection.js';
import { injectionLevel } from '../../daemon/detectors/injection-config.js';
import { scoreInjection } from '../../daemon/detectors/injection-score.js';
import { formatScore, loadCorpus, score } from './corpus/score.js';

const CORPUS = fileURLToPath(new URL('../../../test/detectors/corpus/injection.jsonl', import.meta.url));
// Precision is what the contract fixes: a false positive flags or blocks an honest prompt. The recall
// floor is lower on purpose: the corpus labels, as attacks, persuasion that no phrase rule can see
// (the "grandmother" framing, fiction that asks for an unguarded answer); catching those takes a
// trained classifier, which this detector is not. 0.85 leaves room for those and little else.
const MIN_PRECISION = 0.95;
const MIN_RECALL = 0.85;

type Level = 'high' | 'medium' | 'low';

t.test('injection corpus: precision, recall and the level of each case', async (t) => {
  const cases = loadCorpus(CORPUS);
  t.ok(cases.length >= 60, `${cases.length} cases`);
  t.ok(cases.filter((c) => c.expect.length === 0).length >= 30, 'at least 30 negatives');
  for (const lang of ['en', 'de', 'fr', 'es'])
    t.ok(
      cases.some((c) => c.lang === lang && c.expect.length > 0),
      `attacks in ${lang}`,
    );
  const config = injectionDetector.parseConfig(undefined);
  const result = score(cases, (text) => injectionDetector.detect(text, config));
  t.comment('\n' + formatScore(result));
  for (const m of result.misses) t.comment(`${m.kind} ${m.id}`);

  const confusion: Record<string, number> = {};
  let agree = 0;
  for (const c of cases) {
    const want = ((c.expect[0] as { level?: Level } | undefined)?.level ?? 'low') as Level;
    const got = injectionLevel(scoreInjection(c.text).score, config);
    confusion[`${want} -> ${got}`] = (confusion[`${want} -> ${got}`] ?? 0) + 1;
    if (want === got) agree++;
    t.ok(!(want === 'low' && got === 'high'), `${c.id}: no honest prompt is blocked`);
  }
  t.comment(`levels (labelled -> detected): ${JSON.stringify(confusion)}; agreement ${agree}/${cases.length}`);
  t.ok(result.overall.precision >= MIN_PRECISION, `precision ${result.overall.precision.toFixed(3)} >= ${MIN_PRECISION}`);
  t.ok(result.overall.recall >= MIN_RECALL, `recall ${result.overall.recall.toFixed(3)} >= ${MIN_RECALL}`);
  t.ok(agree / cases.length >= 0.9, 'the level agrees with the label for at least 90% of cases');
});
