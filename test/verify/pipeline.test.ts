import t from 'tap';
import { runStages } from '../../daemon/pipeline/runner.js';
import type { ExtractedAttachment } from '../../daemon/verify/attachments/index.js';
import { DETECTORS } from '../../daemon/detectors/index.js';
import { VERIFY_STAGES } from '../../daemon/verify/pipeline.js';
import type { LoadedPolicy } from '../../daemon/verify/prompt-policies.js';
import type { VerifyContext } from '../../daemon/verify/stages/types.js';

function policy(name: string, action: string, words: string[], extra: Partial<LoadedPolicy> = {}): LoadedPolicy {
  const config = { words };
  return {
    id: name,
    name,
    description: null,
    detector: 'keywords',
    config,
    action,
    action_config: {},
    scope: { sources: ['api', 'browser'], environments: ['*'] },
    enabled: true,
    is_default: false,
    created_at: '',
    updated_at: '',
    parsedConfig: DETECTORS.keywords!.parseConfig(config),
    ...extra,
  };
}

const image: ExtractedAttachment = {
  index: 0,
  name: 'a.png',
  declared_type: null,
  mime: 'image/png',
  category: 'image',
  size: 10,
  inspected: false,
  text: null,
  truncated: false,
};

function ctx(over: Partial<VerifyContext> = {}): VerifyContext {
  return {
    request: { prompt: 'the secretword and the otherword', metadata: {} },
    source: 'api',
    environment: 'prod',
    agent: null,
    policies: [],
    fieldRoles: null,
    extraction: { ok: true, value: [] },
    detectorBudgetMs: 1000,
    requestHash: 'sha256:x',
    auditLevel: 'standard',
    attestation: false,
    ...over,
  };
}

const run = (over: Partial<VerifyContext>) => runStages(VERIFY_STAGES, ctx(over));
const refusalOf = (over: Partial<VerifyContext>) => {
  const d = run(over);
  return d.kind === 'refuse' ? { stage: d.stage, code: d.refusal.code } : null;
};

t.test("the stage order is the specification's", async (t) => {
  t.same(
    VERIFY_STAGES.map((s) => s.name),
    ['agent', 'attachments', 'segments', 'policies', 'combine', 'uninspected'],
  );
  t.ok(Object.isFrozen(VERIFY_STAGES));
});

t.test('every refusal: the stage that refused and its code', async (t) => {
  const cases: [string, Partial<VerifyContext>, string, string][] = [
    ['suspended agent', { agent: { id: 'ag', status: 'SUSPENDED' } }, 'agent', 'BLOCKED'],
    ['extraction past its deadline', { extraction: { ok: false, code: 'attachment_extraction_timeout' } }, 'attachments', 'BLOCKED'],
    [
      'a bad attachment',
      { extraction: { ok: false, code: 'validation_error', detail: 'Invalid request: attachments.0' } },
      'attachments',
      'validation_error',
    ],
    ['a detector that throws', { policies: [{ ...policy('k', 'FLAG', ['x']), parsedConfig: null }] }, 'policies', 'BLOCKED'],
    [
      'a configuration that no longer parses',
      { policies: [{ ...policy('k', 'FLAG', ['x']), parsedConfig: undefined }] },
      'policies',
      'BLOCKED',
    ],
    ['BLOCK policy', { policies: [policy('b', 'BLOCK', ['secretword'])] }, 'combine', 'BLOCKED'],
    ['REQUIRE_APPROVAL policy', { policies: [policy('r', 'REQUIRE_APPROVAL', ['secretword'])] }, 'combine', 'PENDING_APPROVAL'],
  ];
  for (const [note, over, stage, code] of cases) t.same(refusalOf(over), { stage, code }, note);
});

t.test('two checks failing at once: the earlier stage answers', async (t) => {
  const suspended = { agent: { id: 'ag', status: 'SUSPENDED' as const } };
  t.same(
    refusalOf({ ...suspended, extraction: { ok: false, code: 'validation_error', detail: 'bad' } }),
    { stage: 'agent', code: 'BLOCKED' },
    'a refused agent is refused before its bad attachment is a 400',
  );
  t.same(
    refusalOf({ extraction: { ok: false, code: 'attachment_extraction_timeout' }, policies: [policy('b', 'BLOCK', ['secretword'])] }),
    { stage: 'attachments', code: 'BLOCKED' },
  );
});

t.test('a fail-closed stop keeps what the policies found before it, and says why', async (t) => {
  const d = run({ policies: [policy('f', 'FLAG', ['secretword']), { ...policy('k', 'FLAG', ['x']), parsedConfig: null }] });
  if (d.kind !== 'refuse' || d.refusal.code === 'validation_error') return t.fail('refused with a ruling');
  t.equal(d.refusal.detail.ruling.errorClass, 'detector_error');
  t.equal(d.refusal.detail.ruling.policy?.name, 'k');
  t.same(
    d.refusal.detail.hits?.map((h) => h.policy.name),
    ['f'],
  );
});

t.test('passing every stage: forward with the ruling; nothing uninspected passes silently', async (t) => {
  const flagged = run({ policies: [policy('f', 'FLAG', ['otherword'])] });
  t.equal(flagged.kind, 'forward');
  t.equal(flagged.state.ruling?.decision, 'FLAGGED');
  const clean = run({});
  t.equal(clean.state.ruling?.decision, 'PASSED');
  const unread = run({ extraction: { ok: true, value: [image] } });
  t.equal(unread.kind, 'forward');
  t.match(unread.state.ruling, { decision: 'FLAGGED', reasonKey: 'reason.attachment_uninspectable', reasonParams: { type: 'image/png' } });
});
