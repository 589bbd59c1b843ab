// The policies stage and the ONNX injection model's outcome (load.ts ran it): its scores reach the
// injection detector by segment, its failure blocks at the first injection policy that consults it.
import t from 'tap';
import { DETECTORS } from '../../../daemon/detectors/index.js';
import type { LoadedPolicy } from '../../../daemon/verify/prompt-policies.js';
import { scan } from '../../../daemon/verify/stages/detection.js';
import type { ModelScores, Segment } from '../../../daemon/verify/stages/types.js';

function policy(detector: string, config: unknown): LoadedPolicy {
  return {
    id: detector,
    name: detector,
    description: null,
    detector,
    config,
    action: 'BLOCK',
    action_config: {},
    scope: { sources: ['api'], environments: ['*'] },
    enabled: true,
    is_default: false,
    created_at: '',
    updated_at: '',
    parsedConfig: DETECTORS[detector]!.parseConfig(config),
  } as LoadedPolicy;
}

const segments: Segment[] = [
  { id: 'prompt', origin: 'prompt', text: 'Please summarise the report.', maskable: true },
  { id: 'extracted_text', origin: 'extracted_text', text: 'Notes of the meeting.', maskable: false },
];
const injection = policy('injection', {});
const pii = policy('pii', {});

t.test('each segment gets its own score: only the one the model marks is found', async (t) => {
  const model: ModelScores = {
    ok: true,
    bySegment: new Map([
      ['prompt', 0.1],
      ['extracted_text', 0.95],
    ]),
  };
  const r = scan([pii, injection], segments, 1000, model);
  t.ok(r.ok);
  t.same(
    r.hits.map((h) => [h.segment.id, h.effect, h.findings[0]!.rule]),
    [['extracted_text', 'BLOCK', 'model.onnx']],
  );
  t.same(scan([pii, injection], segments, 1000), { ok: true, hits: [] }, 'no model: no finding');
});

t.test('a failed or late model run blocks with its error class at the injection policy, the hits before it kept', async (t) => {
  for (const errorClass of ['detector_error', 'detector_timeout'] as const) {
    const model: ModelScores = { ok: false, errorClass, detail: 'x' };
    const r = scan([pii, injection], segments, 1000, model);
    t.match(r, { ok: false, errorClass, policy: { detector: 'injection' } }, errorClass);
    t.same(scan([pii], segments, 1000, model), { ok: true, hits: [] }, `${errorClass}: no injection policy, no refusal`);
    const off = policy('injection', { disabled_rules: ['model.onnx'] });
    t.same(scan([off], segments, 1000, model), { ok: true, hits: [] }, `${errorClass}: a policy that turned it off does not block`);
  }
});
