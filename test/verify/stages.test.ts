import t from 'tap';
import type { Finding } from '../../daemon/detectors/types.js';
import { DETECTORS } from '../../daemon/detectors/index.js';
import type { LoadedPolicy } from '../../daemon/verify/prompt-policies.js';
import { shapeOutput } from '../../daemon/verify/output.js';
import { gateAgent } from '../../daemon/verify/stages/agent.js';
import { combine, DECISION_ORDER } from '../../daemon/verify/stages/combine.js';
import { applicable, scan } from '../../daemon/verify/stages/detection.js';
import { segmentsOf } from '../../daemon/verify/stages/segments.js';
import type { Effect, Hit, Segment } from '../../daemon/verify/stages/types.js';

function policy(name: string, action: string, extra: Partial<LoadedPolicy> = {}): LoadedPolicy {
  const detector = extra.detector ?? 'keywords';
  const config = extra.config ?? { words: ['secretword'] };
  return {
    id: name,
    name,
    description: null,
    detector,
    config,
    action,
    action_config: {},
    scope: { sources: ['api', 'browser'], environments: ['*'] },
    enabled: true,
    is_default: false,
    created_at: '',
    updated_at: '',
    parsedConfig: DETECTORS[detector]!.parseConfig(config),
    ...extra,
  };
}

const prompt: Segment = { id: 'prompt', origin: 'prompt', text: 'hello', maskable: true };
const attachment: Segment = { id: 'attachment:0', origin: 'attachment', text: 'hello', maskable: false, attachmentIndex: 0 };
const finding: Finding = { detector: 'keywords', entity: 'X', start: 0, end: 5, score: 1 };
const hit = (effect: Effect, segment: Segment = prompt): Hit => ({ policy: policy(effect, effect), segment, effect, findings: [finding] });

t.test("the decision order is the specification's: BLOCKED > PENDING_APPROVAL > MODIFIED > FLAGGED > PASSED", async (t) => {
  t.same(DECISION_ORDER, ['BLOCKED', 'PENDING_APPROVAL', 'MODIFIED', 'FLAGGED', 'PASSED']);
  const effects: Effect[] = ['FLAG', 'REDACT', 'REQUIRE_APPROVAL', 'BLOCK'];
  const expected = ['FLAGGED', 'MODIFIED', 'PENDING_APPROVAL', 'BLOCKED'];
  for (let i = 0; i < effects.length; i += 1) {
    for (let j = 0; j < effects.length; j += 1) {
      const got = combine([hit(effects[i]!), hit(effects[j]!)], 'api');
      t.equal(got.decision, expected[Math.max(i, j)], `${effects[i]} + ${effects[j]}`);
      t.equal(got.policy?.name, effects[Math.max(i, j)], 'the strictest policy names the reason');
    }
  }
  t.equal(combine([], 'api').decision, 'PASSED');
  t.equal(combine([], 'api').reasonKey, null);
});

t.test('a mask on an attachment cannot be applied, so it blocks', async (t) => {
  const v = combine([hit('REDACT', attachment)], 'api');
  t.equal(v.decision, 'BLOCKED');
  t.equal(v.reasonKey, 'reason.attachment_unmaskable');
});

t.test('browser actions: enforcement_action only for browser traffic, the strongest wins', async (t) => {
  t.equal(combine([hit('WARN')], 'api').enforcementAction, undefined);
  t.equal(combine([hit('WARN')], 'browser').enforcementAction, 'WARN');
  t.equal(combine([hit('WARN'), hit('JUSTIFY')], 'browser').enforcementAction, 'JUSTIFY');
  t.equal(combine([hit('JUSTIFY'), hit('REDIRECT')], 'browser').enforcementAction, 'REDIRECT');
  t.equal(combine([hit('REDIRECT'), hit('BLOCK')], 'browser').enforcementAction, 'BLOCK');
  t.equal(combine([hit('REDIRECT')], 'browser').decision, 'BLOCKED');
  t.equal(combine([hit('JUSTIFY')], 'browser').decision, 'FLAGGED');
  t.equal(combine([hit('REDACT')], 'browser').enforcementAction, undefined);
});

t.test('policies apply by source and environment', async (t) => {
  const browserOnly = policy('b', 'WARN', { scope: { sources: ['browser'], environments: ['*'] } });
  const stagingOnly = policy('s', 'FLAG', { scope: { sources: ['api'], environments: ['staging'] } });
  const disabled = policy('d', 'FLAG', { enabled: false });
  t.same(
    applicable([browserOnly, stagingOnly, disabled], 'api', 'prod').map((p) => p.name),
    [],
  );
  t.same(
    applicable([browserOnly, stagingOnly, disabled], 'api', 'staging').map((p) => p.name),
    ['s'],
  );
  t.same(
    applicable([browserOnly, stagingOnly, disabled], 'browser', 'prod').map((p) => p.name),
    ['b'],
  );
});

t.test('agent gate: only ACTIVE acts, unknown is anonymous', async (t) => {
  t.equal(gateAgent(null), null);
  t.equal(gateAgent('ACTIVE'), null);
  t.match(gateAgent('SUSPENDED'), { decision: 'BLOCKED', code: 'AGENT_EMERGENCY_STOP' });
  t.match(gateAgent('PAUSED'), { decision: 'BLOCKED', code: 'AGENT_PAUSED' });
});

t.test('segments: routing fields are never scanned; fields of unknown tools are content', async (t) => {
  const req = { prompt: 'p', metadata: {}, structured_input: { tool_name: 't', fields: { to: 'a', body: 'b' } }, extracted_text: 'e' };
  t.same(
    segmentsOf(req, [], { to: 'routing', body: 'content' }).map((s) => s.id),
    ['prompt', 'field:body', 'extracted_text'],
  );
  t.same(
    segmentsOf(req, [], null).map((s) => s.id),
    ['prompt', 'field:to', 'field:body', 'extracted_text'],
  );
});

t.test('scan: findings per policy and segment; a throwing detector ends the scan (fail closed)', async (t) => {
  const p = policy('k', 'FLAG');
  const ok = scan([p], [{ ...prompt, text: 'the secretword is here' }], 1000);
  t.ok(ok.ok);
  t.equal(ok.hits.length, 1);
  const broken: LoadedPolicy = { ...p, parsedConfig: null };
  const failed = scan([broken], [prompt], 1000);
  t.same({ ok: failed.ok, errorClass: (failed as { errorClass: string }).errorClass }, { ok: false, errorClass: 'detector_error' });
});

t.test('output: one placeholder numbering across prompt and fields; nothing forwarded when blocked or held', async (t) => {
  const req = { prompt: 'mail a@b.de', metadata: {}, structured_input: { tool_name: 't', fields: { body: 'to a@b.de' } } };
  const p = policy('pii', 'REDACT', { detector: 'pii', config: {} });
  const segments = segmentsOf(req, [], { body: 'content' });
  const hits: Hit[] = segments.map((segment) => ({
    policy: p,
    segment,
    effect: 'REDACT' as const,
    findings: DETECTORS.pii!.detect(segment.text, p.parsedConfig),
  }));
  const shaped = shapeOutput(req, segments, hits, 'MODIFIED', { body: 'content' });
  t.equal(shaped.output, 'mail [EMAIL_1]');
  t.same(shaped.modifiedFields, { body: { role: 'content', status: 'masked', value: 'to [EMAIL_1]' } });
  const held = shapeOutput(req, segments, hits, 'PENDING_APPROVAL', { body: 'content' });
  t.notOk('output' in held);
  t.same(held.modifiedFields, { body: { role: 'content', status: 'masked' } }, 'no values when nothing is forwarded');
});
