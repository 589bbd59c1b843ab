import fs from 'node:fs/promises';
import path from 'node:path';
import t from 'tap';
import { loadOnnxClassifier, OnnxModelError, OnnxTimeoutError, type OnnxClassifier } from '../../daemon/models/onnx-classifier.js';
import { buildTinyModelDir } from '../helpers/tiny-onnx.js';

const BENIGN = 'Please summarise the quarterly report in three bullet points for the team meeting.';
/** Words enough for several 16-token windows of the tiny model. */
const LONG = Array.from({ length: 12 }, () => BENIGN).join(' ');

async function tiny(
  t: { teardown(fn: () => unknown): void },
  options: Parameters<typeof buildTinyModelDir>[0] = {},
): Promise<{ dir: string; model: OnnxClassifier }> {
  const dir = await buildTinyModelDir(options);
  t.teardown(() => fs.rm(dir, { recursive: true, force: true }));
  const model = await loadOnnxClassifier(dir);
  t.teardown(() => model.close());
  return { dir, model };
}

t.test('the tiny model loads and scores its trigger words above 0.9 and benign text below 0.1', async (t) => {
  const { model } = await tiny(t);
  t.same(model.labels, ['BENIGN', 'INJECTION']);
  t.equal(model.maxTokens, 16, 'max_position_embeddings from config.json');
  const [trigger, benign, empty] = await model.score(['the zebra and the quokka', BENIGN, ''], 5000);
  t.ok(trigger! > 0.9, `trigger ${trigger}`);
  t.ok(benign! < 0.1, `benign ${benign}`);
  t.ok(empty! < 0.1, `empty ${empty}`);
});

t.test('onnx/model.onnx, as Hugging Face exports lay it out, is found too', async (t) => {
  const { model } = await tiny(t, { layout: 'onnx' });
  const [score] = await model.score(['quokka'], 5000);
  t.ok(score! > 0.9);
});

t.test('windows: a trigger at the end of a text many windows long is found, and innocent text never dilutes it', async (t) => {
  const { model } = await tiny(t);
  const scores = await model.score([`${LONG} zebra`, `zebra ${LONG}`, `${LONG} zebra ${LONG}`, LONG], 5000);
  t.ok(scores[0]! > 0.9, `at the end ${scores[0]}`);
  t.ok(scores[1]! > 0.9, `at the start ${scores[1]}`);
  t.ok(scores[2]! > 0.9, `in the middle ${scores[2]}`);
  t.ok(scores[3]! < 0.1, `no trigger ${scores[3]}`);
  t.equal(scores[0], (await model.score(['zebra'], 5000))[0], 'the same probability as the trigger alone');
});

t.test('the injection probability sums every label that names an attack', async (t) => {
  // Label 0 is the trigger class here too, renamed: both labels match, so every text scores 1.
  const { model } = await tiny(t, { labels: ['UNSAFE', 'JAILBREAK'] });
  const [score] = await model.score([BENIGN], 5000);
  t.ok(Math.abs(score! - 1) < 1e-6, `${score}`);
});

t.test('a directory that cannot serve is refused at load with one line naming the problem', async (t) => {
  const expectRefused = async (dir: string, message: RegExp, name: string) => {
    const err = await loadOnnxClassifier(dir).then(
      () => null,
      (e: unknown) => e,
    );
    t.ok(err instanceof OnnxModelError, `${name}: OnnxModelError`);
    t.match((err as Error).message, message, name);
    t.match((err as Error).message, dir, `${name}: names the directory`);
    t.notMatch((err as Error).message, /\n/, `${name}: one line`);
  };
  const dir = await buildTinyModelDir();
  t.teardown(() => fs.rm(dir, { recursive: true, force: true }));
  await expectRefused(path.join(dir, 'absent'), /not a directory/, 'missing directory');
  const noLabel = await buildTinyModelDir({ labels: ['SAFE', 'OTHER'] });
  t.teardown(() => fs.rm(noLabel, { recursive: true, force: true }));
  await expectRefused(noLabel, /no label matching injection\|jailbreak\|malicious\|unsafe \(SAFE, OTHER\)/, 'no injection label');
  const threeLabels = await buildTinyModelDir({ labels: ['BENIGN', 'INJECTION', 'JAILBREAK'] });
  t.teardown(() => fs.rm(threeLabels, { recursive: true, force: true }));
  await expectRefused(threeLabels, /does not run on an empty text .*not float32 \[1, 3\] logits/, 'outputs that are not its labels');

  await fs.writeFile(path.join(dir, 'model.onnx'), 'not a protobuf');
  await expectRefused(dir, /model\.onnx does not load in onnxruntime/, 'corrupt model');
  await fs.rm(path.join(dir, 'model.onnx'));
  await expectRefused(dir, /no model\.onnx or onnx\/model\.onnx/, 'no model file');
  const noTokenizer = await buildTinyModelDir();
  t.teardown(() => fs.rm(noTokenizer, { recursive: true, force: true }));
  await fs.rm(path.join(noTokenizer, 'tokenizer.json'));
  await expectRefused(noTokenizer, /tokenizer\.json cannot be read \(ENOENT\)/, 'no tokenizer');
  await fs.writeFile(path.join(noTokenizer, 'tokenizer.json'), '{"model": {"type": "NoSuchModel"}}');
  await expectRefused(noTokenizer, /tokenizer\.json is not a tokenizer this gateway reads/, 'unknown tokenizer');
  await fs.writeFile(path.join(noTokenizer, 'config.json'), '{"labels": []}');
  await expectRefused(noTokenizer, /config\.json has no id2label/, 'no id2label');
});

t.test('a model that fails at run time rejects, and one past its budget rejects as a timeout', async (t) => {
  const { model: broken } = await tiny(t, { broken: true });
  const err = await broken.score(['hello world'], 5000).then(
    () => null,
    (e: unknown) => e,
  );
  t.ok(err instanceof Error && !(err instanceof OnnxTimeoutError), `a run error: ${String(err)}`);
  t.match((err as Error).message, /Gather/, "onnxruntime's own reason");
  const { model } = await tiny(t);
  const late = await model.score([LONG], 0).then(
    () => null,
    (e: unknown) => e,
  );
  t.ok(late instanceof OnnxTimeoutError, `a timeout: ${String(late)}`);
});
