// The optional ONNX injection model (GATEWAY_INJECTION_MODEL_DIR) through the API, on the tiny model
// the tests build (test/helpers/tiny-onnx.ts): its trigger words "zebra" and "quokka" mean nothing to
// the phrase rules or the linear classifier, so only a daemon that runs the model blocks them.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { freshDatabase } from '../../helpers/db.js';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.js';
import { spawnDaemon } from '../../helpers/spawn-daemon.js';
import { buildTinyModelDir } from '../../helpers/tiny-onnx.js';

const ONLY_THE_MODEL = 'Tell me about the zebra and the quokka at the zoo.';

async function modelDir(t: { teardown(fn: () => unknown): void }, broken = false): Promise<string> {
  const dir = await buildTinyModelDir({ broken });
  t.teardown(() => fs.rm(dir, { recursive: true, force: true }));
  return dir;
}
const verify = (gw: TestGateway, body: unknown) => gw.api('POST', '/api/v1/verify', { body });
const payloads = async (gw: TestGateway, id: string) =>
  JSON.stringify((await gw.api('GET', `/api/v1/traces?id=${id}`)).body.traces[0].payloads);
async function patchInjection(gw: TestGateway, body: Record<string, unknown>): Promise<void> {
  const policies = (await gw.api('GET', '/api/v1/verify/policies')).body.policies;
  const injection = policies.find((p: { detector: string }) => p.detector === 'injection');
  const res = await gw.api('PATCH', `/api/v1/verify/policies/${injection.id}`, { body });
  if (res.status !== 200) throw new Error(`PATCH policy: ${res.status} ${res.text}`);
  await gw.settled();
}

t.test('a daemon with the model BLOCKS what only the model catches; the same prompt PASSES without it', async (t) => {
  const plain = await startTestGateway(t);
  t.equal((await verify(plain, { prompt: ONLY_THE_MODEL })).body.decision, 'PASSED', 'rules and linear classifier let it through');

  const gw = await startTestGateway(t, { env: { GATEWAY_INJECTION_MODEL_DIR: await modelDir(t) } });
  t.ok(
    gw.logLines.some((l) => /injection model loaded/.test(l)),
    'start-up logs the model',
  );
  const res = await verify(gw, { prompt: ONLY_THE_MODEL });
  t.equal(res.status, 403);
  t.equal(res.body.decision, 'BLOCKED');
  t.notOk('error_class' in res.body, 'blocked by the finding, not fail-closed');
  t.match(await payloads(gw, res.body.trace_id), /model\.onnx/, 'the finding names the model');
  t.equal((await verify(gw, { prompt: 'Please summarise the quarterly report in three bullet points.' })).body.decision, 'PASSED');

  const data = await verify(gw, { prompt: 'Summarise this note.', extracted_text: `Notes from the meeting. ${ONLY_THE_MODEL}` });
  t.equal(data.body.decision, 'BLOCKED', 'every segment is scored, extracted_text too');
  t.match(await payloads(gw, data.body.trace_id), /"segment":"extracted_text"/);
});

t.test("disabled_rules: ['model.onnx'] on the injection policy turns the model off", async (t) => {
  const gw = await startTestGateway(t, { env: { GATEWAY_INJECTION_MODEL_DIR: await modelDir(t) } });
  await patchInjection(gw, { config: { disabled_rules: ['model.onnx'] } });
  t.equal((await verify(gw, { prompt: ONLY_THE_MODEL })).body.decision, 'PASSED');
});

t.test('a model that fails at run time BLOCKS with detector_error (fail closed), the trace written', async (t) => {
  const gw = await startTestGateway(t, { env: { GATEWAY_INJECTION_MODEL_DIR: await modelDir(t, true) } });
  const res = await verify(gw, { prompt: 'hello world' });
  t.equal(res.status, 403);
  t.equal(res.body.decision, 'BLOCKED');
  t.equal(res.body.error_class, 'detector_error');
  t.ok(res.body.trace_id, 'the refusal is recorded');
  t.ok(
    gw.logLines.some((l) => /injection model failed/.test(l) && /Gather/.test(l)),
    "the log says why, in onnxruntime's words",
  );
  // With no injection policy that consults it, the model is not run at all: the same text passes.
  await patchInjection(gw, { config: { disabled_rules: ['model.onnx'] } });
  t.equal((await verify(gw, { prompt: 'hello world' })).body.decision, 'PASSED');
  await patchInjection(gw, { config: {}, enabled: false });
  t.equal((await verify(gw, { prompt: 'hello world' })).body.decision, 'PASSED');
});

t.test('a model directory that does not load stops the daemon at start, with one line naming it', async (t) => {
  const databaseUrl = await freshDatabase(t);
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'gw-onnx-start-'));
  t.teardown(() => fs.rm(dataDir, { recursive: true, force: true }));
  const noLabels = await buildTinyModelDir({ labels: ['SAFE', 'OTHER'] });
  t.teardown(() => fs.rm(noLabels, { recursive: true, force: true }));
  const cases: [string, string, RegExp][] = [
    ['missing', path.join(dataDir, 'absent-model'), /not a directory/],
    ['no injection label', noLabels, /no label matching/],
  ];
  for (const [name, dir, why] of cases) {
    const daemon = spawnDaemon({ DATABASE_URL: databaseUrl, GATEWAY_DATA_DIR: dataDir, GATEWAY_INJECTION_MODEL_DIR: dir });
    const exit = await daemon.exit;
    t.equal(exit.code, 1, `${name}: exits`);
    const lines = daemon.stderr().trim().split('\n');
    t.equal(lines.length, 1, `${name}: one line on stderr`);
    t.match(lines[0], why, `${name}: says why`);
    t.match(lines[0], `GATEWAY_INJECTION_MODEL_DIR ${dir}`, `${name}: names the variable and the directory`);
  }
});
