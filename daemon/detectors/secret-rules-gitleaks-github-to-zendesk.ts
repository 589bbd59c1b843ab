// gitleaks' default rules in gitleaks' own order (by id), from github-app-token to zendesk-secret-key;
// secret-rules-gitleaks.ts joins them with the rest in that order. See there for where they come from.
import type { SecretRule } from './secret-rule-types.js';
import { END, r, s, sc, uniq, UUID } from './secret-rules-gitleaks-builders.js';

const GH = { entity: 'GITHUB_TOKEN', entropy: 3 };
const GL = { entity: 'GITLAB_TOKEN', entropy: 3 };
const SLACK = { entity: 'SLACK_TOKEN', entropy: 2 };
const NR = 'new-relic|newrelic|new_relic';
const JFROG = 'jfrog|artifactory|bintray|xray';
const K8S_ITEM = String.raw`([\w.-]+:(?:[ \t]*(?:\||>[-+]?)\s+)?[ \t]*(?:["']?[a-z0-9+/]{10,}={0,3}["']?|\{\{[ \t\w"|$:=,.-]+}}|""|''))`;
const K8S_KIND = String.raw`\bkind:[ \t]*["']?\bsecret\b["']?`;

export const GITLEAKS_RULES_GITHUB_TO_ZENDESK: readonly SecretRule[] = [
  r('github-app-token', '(?:ghu|ghs)_[0-9a-zA-Z]{36}', ['ghu_', 'ghs_'], GH),
  r('github-fine-grained-pat', String.raw`github_pat_\w{82}`, ['github_pat_'], GH),
  r('github-oauth', 'gho_[0-9a-zA-Z]{36}', ['gho_'], GH),
  r('github-pat', 'ghp_[0-9a-zA-Z]{36}', ['ghp_'], GH),
  r('github-refresh-token', 'ghr_[0-9a-zA-Z]{36}', ['ghr_'], GH),
  r('gitlab-cicd-job-token', 'glcbt-[0-9a-zA-Z]{1,5}_[0-9a-zA-Z_-]{20}', ['glcbt-'], GL),
  r('gitlab-deploy-token', String.raw`gldt-[0-9a-zA-Z_\-]{20}`, ['gldt-'], GL),
  r('gitlab-feature-flag-client-token', String.raw`glffct-[0-9a-zA-Z_\-]{20}`, ['glffct-'], GL),
  r('gitlab-feed-token', String.raw`glft-[0-9a-zA-Z_\-]{20}`, ['glft-'], GL),
  r('gitlab-incoming-mail-token', String.raw`glimt-[0-9a-zA-Z_\-]{25}`, ['glimt-'], GL),
  r('gitlab-kubernetes-agent-token', String.raw`glagent-[0-9a-zA-Z_\-]{50}`, ['glagent-'], GL),
  r('gitlab-oauth-app-secret', String.raw`gloas-[0-9a-zA-Z_\-]{64}`, ['gloas-'], GL),
  r('gitlab-pat', String.raw`glpat-[\w-]{20}`, ['glpat-'], GL),
  r('gitlab-pat-routable', String.raw`\bglpat-[0-9a-zA-Z_-]{27,300}\.[0-9a-z]{2}[0-9a-z]{7}\b`, ['glpat-'], { ...GL, entropy: 4 }),
  r('gitlab-ptt', 'glptt-[0-9a-f]{40}', ['glptt-'], GL),
  r('gitlab-rrt', String.raw`GR1348941[\w-]{20}`, ['gr1348941'], GL),
  r('gitlab-runner-authentication-token', String.raw`glrt-[0-9a-zA-Z_\-]{20}`, ['glrt-'], GL),
  r('gitlab-runner-authentication-token-routable', String.raw`\bglrt-t\d_[0-9a-zA-Z_\-]{27,300}\.[0-9a-z]{2}[0-9a-z]{7}\b`, ['glrt-'], {
    ...GL,
    entropy: 4,
  }),
  r('gitlab-scim-token', String.raw`glsoat-[0-9a-zA-Z_\-]{20}`, ['glsoat-'], GL),
  r('gitlab-session-cookie', '_gitlab_session=[0-9a-z]{32}', ['_gitlab_session='], GL),
  s('gitter-access-token', 'gitter', '[a-z0-9_-]{40}', ['gitter']),
  s('gocardless-api-token', 'gocardless', String.raw`live_(?i)[a-z0-9\-_=]{40}`, ['live_', 'gocardless']),
  // ours: {70,400} -> {70,} and {32,400} -> {32,}, for the same reason.
  r('grafana-api-key', uniq('eyJrIjoi[A-Za-z0-9]{70,}={0,3}', true), ['eyjrijoi'], { entropy: 3 }),
  r('grafana-cloud-api-token', uniq('glc_[A-Za-z0-9+/]{32,}={0,3}', true), ['glc_'], { entropy: 3 }),
  r('grafana-service-account-token', uniq('glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}', true), ['glsa_'], { entropy: 3 }),
  r('harness-api-key', String.raw`(?:pat|sat)\.[a-zA-Z0-9_-]{22}\.[a-zA-Z0-9]{24}\.[a-zA-Z0-9]{20}`, ['pat.', 'sat.']),
  r('hashicorp-tf-api-token', String.raw`(?i)[a-z0-9]{14}\.(?-i:atlasv1)\.[a-z0-9\-_=]{60,70}`, ['atlasv1'], { entropy: 3.5 }),
  s('heroku-api-key', 'heroku', UUID, ['heroku']),
  r('heroku-api-key-v2', uniq('(HRKU-AA[0-9a-zA-Z_-]{58})'), ['hrku-aa'], { entropy: 4 }),
  s('hubspot-api-key', 'hubspot', '[0-9A-F]{8}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{12}', ['hubspot']),
  r('huggingface-access-token', uniq('hf_(?i:[a-z]{34})'), ['hf_'], { entropy: 2 }),
  r('huggingface-organization-api-token', uniq('api_org_(?i:[a-z]{34})'), ['api_org_'], { entropy: 2 }),
  r('infracost-api-token', uniq('ico-[a-zA-Z0-9]{32}'), ['ico-'], { entropy: 3 }),
  s('intercom-api-key', 'intercom', String.raw`[a-z0-9=_\-]{60}`, ['intercom']),
  r('intra42-client-secret', uniq('s-s4t2(?:ud|af)-(?i)[abcdef0123456789]{64}'), ['intra', 's-s4t2ud-', 's-s4t2af-'], { entropy: 3 }),
  s('jfrog-api-key', JFROG, '[a-z0-9]{73}', ['jfrog', 'artifactory', 'bintray', 'xray']),
  s('jfrog-identity-token', JFROG, '[a-z0-9]{64}', ['jfrog', 'artifactory', 'bintray', 'xray']),
  // ours: keyword "ey" -> "eyj". Both parts of a JWT are base64url of a JSON object ('{"' -> "eyJ"); "ey" alone
  // occurs in most English sentences and would run this rule on every prompt.
  r('jwt', uniq(String.raw`ey[a-zA-Z0-9]{17,}\.ey[a-zA-Z0-9\/\\_-]{17,}\.(?:[a-zA-Z0-9\/\\_-]{10,}={0,2})?`), ['eyj'], {
    entity: 'JWT',
    entropy: 3,
    span: [0, 8192],
  }),
  r(
    'jwt-base64',
    String.raw`\bZXlK(?:(?P<alg>aGJHY2lPaU)|(?P<apu>aGNIVWlPaU)|(?P<apv>aGNIWWlPaU)|(?P<aud>aGRXUWlPaU)|(?P<b64>aU5qUWlP)|(?P<crit>amNtbDBJanBi)|(?P<cty>amRIa2lPaU)|(?P<epk>bGNHc2lPbn)|(?P<enc>bGJtTWlPaU)|(?P<jku>cWEzVWlPaU)|(?P<jwk>cWQyc2lPb)|(?P<iss>cGMzTWlPaU)|(?P<iv>cGRpSTZJ)|(?P<kid>cmFXUWlP)|(?P<key_ops>clpYbGZiM0J6SWpwY)|(?P<kty>cmRIa2lPaUp)|(?P<nonce>dWIyNWpaU0k2)|(?P<p2c>d01tTWlP)|(?P<p2s>d01uTWlPaU)|(?P<ppt>d2NIUWlPaU)|(?P<sub>emRXSWlPaU)|(?P<svt>emRuUWlP)|(?P<tag>MFlXY2lPaU)|(?P<typ>MGVYQWlPaUp)|(?P<url>MWNtd2l)|(?P<use>MWMyVWlPaUp)|(?P<ver>MlpYSWlPaU)|(?P<version>MlpYSnphVzl1SWpv)|(?P<x>NElqb2)|(?P<x5c>NE5XTWlP)|(?P<x5t>NE5YUWlPaU)|(?P<x5ts256>NE5YUWpVekkxTmlJNkl)|(?P<x5u>NE5YVWlPaU)|(?P<zip>NmFYQWlPaU))[a-zA-Z0-9\/\\_+\-\r\n]{40,}={0,2}`,
    // ours: the named groups only tell which JWT header field was encoded; the secret is the whole match.
    ['zxlk'],
    { entity: 'JWT', entropy: 2, secretGroup: 0, span: [0, 8192] },
  ),
  s('kraken-access-token', 'kraken', String.raw`[a-z0-9\/=_\+\-]{80,90}`, ['kraken']),
  // gitleaks scopes this rule to *.yaml; ours: keyword "secret" -> "kind:", which both branches of the regex require.
  r(
    'kubernetes-secret-yaml',
    String.raw`(?i)(?:`
      + K8S_KIND
      + String.raw`(?s:.){0,200}?\bdata:(?s:.){0,100}?\s+`
      + K8S_ITEM
      + String.raw`|\bdata:(?s:.){0,100}?\s+`
      + K8S_ITEM
      + String.raw`(?s:.){0,200}?`
      + K8S_KIND
      + ')',
    ['kind:'],
    {
      span: [512, 1024],
      allow: [
        { regexes: [String.raw`[\w.-]+:(?:[ \t]*(?:\||>[-+]?)\s+)?[ \t]*(?:\{\{[ \t\w"|$:=,.-]+}}|""|'')`] },
        { target: 'match', regexes: [String.raw`(kind:(?s:.)+\n---\n(?s:.)+\bdata:|data:(?s:.)+\n---\n(?s:.)+\bkind:)`] },
      ],
    },
  ),
  s('kucoin-access-token', 'kucoin', '[a-f0-9]{24}', ['kucoin']),
  s('kucoin-secret-key', 'kucoin', UUID, ['kucoin']),
  s('launchdarkly-access-token', 'launchdarkly', String.raw`[a-z0-9=_\-]{40}`, ['launchdarkly']),
  r('linear-api-key', 'lin_api_(?i)[a-z0-9]{40}', ['lin_api_'], { entropy: 2 }),
  s('linear-client-secret', 'linear', '[a-f0-9]{32}', ['linear'], { entropy: 2 }),
  s('linkedin-client-id', 'linked[_-]?in', '[a-z0-9]{14}', ['linkedin', 'linked_in', 'linked-in'], { entropy: 2 }),
  s('linkedin-client-secret', 'linked[_-]?in', '[a-z0-9]{16}', ['linkedin', 'linked_in', 'linked-in'], { entropy: 2 }),
  s('lob-api-key', 'lob', '(live|test)_[a-f0-9]{35}', ['test_', 'live_']),
  s('lob-pub-api-key', 'lob', '(test|live)_pub_[a-f0-9]{31}', ['test_pub', 'live_pub', '_pub']),
  s('mailchimp-api-key', 'MailchimpSDK.initialize|mailchimp', String.raw`[a-f0-9]{32}-us\d\d`, ['mailchimp']),
  s('mailgun-private-api-token', 'mailgun', 'key-[a-f0-9]{32}', ['mailgun']),
  s('mailgun-pub-key', 'mailgun', 'pubkey-[a-f0-9]{32}', ['mailgun']),
  s('mailgun-signing-key', 'mailgun', '[a-h0-9]{32}-[a-h0-9]{8}-[a-h0-9]{8}', ['mailgun']),
  s('mapbox-api-token', 'mapbox', String.raw`pk\.[a-z0-9]{60}\.[a-z0-9]{22}`, ['mapbox']),
  s('mattermost-access-token', 'mattermost', '[a-z0-9]{26}', ['mattermost']),
  r('maxmind-license-key', uniq('[A-Za-z0-9]{6}_[A-Za-z0-9]{29}_mmk'), ['_mmk'], { entropy: 4 }),
  s('messagebird-api-token', 'message[_-]?bird', '[a-z0-9]{25}', ['messagebird', 'message-bird', 'message_bird']),
  s('messagebird-client-id', 'message[_-]?bird', UUID, ['messagebird', 'message-bird', 'message_bird']),
  r(
    'microsoft-teams-webhook',
    String.raw`https://[a-z0-9]+\.webhook\.office\.com/webhookb2/[a-z0-9]{8}-([a-z0-9]{4}-){3}[a-z0-9]{12}@[a-z0-9]{8}-([a-z0-9]{4}-){3}[a-z0-9]{12}/IncomingWebhook/[a-z0-9]{32}/[a-z0-9]{8}-([a-z0-9]{4}-){3}[a-z0-9]{12}`,
    // ours: the groups are repetition helpers, the secret is the whole URL.
    ['webhook.office.com', 'webhookb2', 'incomingwebhook'],
    { secretGroup: 0 },
  ),
  s('netlify-access-token', 'netlify', String.raw`[a-z0-9=_\-]{40,46}`, ['netlify']),
  s('new-relic-browser-api-token', NR, 'NRJS-[a-f0-9]{19}', ['nrjs-']),
  s('new-relic-insert-key', NR, 'NRII-[a-z0-9-]{32}', ['nrii-']),
  s('new-relic-user-api-id', NR, '[a-z0-9]{64}', ['new-relic', 'newrelic', 'new_relic']),
  s('new-relic-user-api-key', NR, 'NRAK-[a-z0-9]{27}', ['nrak']),
  r('notion-api-token', uniq('ntn_[0-9]{11}[A-Za-z0-9]{32}[A-Za-z0-9]{3}'), ['ntn_'], { entropy: 4 }),
  r('npm-access-token', uniq('npm_[a-z0-9]{36}', true), ['npm_'], { entropy: 2 }),
  // gitleaks scopes this rule to nuget.config files; the XML shape is specific enough on its own.
  r('nuget-config-password', String.raw`(?i)<add key=\"(?:(?:ClearText)?Password)\"\s*value=\"(.{8,})\"\s*/>`, ['<add key='], {
    entropy: 1,
    allow: [{ regexes: ['33f!!lloppa', String.raw`hal\+9ooo_da!sY`, String.raw`^\%\S.*\%$`] }],
  }),
  s('nytimes-access-token', 'nytimes|new-york-times,|newyorktimes', String.raw`[a-z0-9=_\-]{32}`, [
    'nytimes',
    'new-york-times',
    'newyorktimes',
  ]),
  r('octopus-deploy-api-key', uniq('API-[A-Z0-9]{26}'), ['api-'], { entropy: 3 }),
  sc('okta-access-token', '(?-i:[Oo]kta|OKTA)', String.raw`00[\w=\-]{40}`, ['okta'], { entropy: 4 }),
  r(
    'openai-api-key',
    String.raw`\b(sk-(?:proj|svcacct|admin)-(?:[A-Za-z0-9_-]{74}|[A-Za-z0-9_-]{58})T3BlbkFJ(?:[A-Za-z0-9_-]{74}|[A-Za-z0-9_-]{58})\b|sk-[a-zA-Z0-9]{20}T3BlbkFJ[a-zA-Z0-9]{20})`
      + END,
    ['t3blbkfj'],
    { entity: 'OPENAI_API_KEY', entropy: 3 },
  ),
  r('openshift-user-token', String.raw`\b(sha256~[\w-]{43})(?:[^\w-]|\z)`, ['sha256~'], { entropy: 3.5 }),
  r('perplexity-api-key', String.raw`\b(pplx-[a-zA-Z0-9]{48})(?:[\x60'"\s;]|\\[nr]|$|\b)`, ['pplx-'], { entropy: 4 }),
  s('plaid-api-token', 'plaid', 'access-(?:sandbox|development|production)-' + UUID, ['plaid']),
  s('plaid-client-id', 'plaid', '[a-z0-9]{24}', ['plaid'], { entropy: 3.5 }),
  s('plaid-secret-key', 'plaid', '[a-z0-9]{30}', ['plaid'], { entropy: 3.5 }),
  r('planetscale-api-token', uniq(String.raw`pscale_tkn_(?i)[\w=\.-]{32,64}`), ['pscale_tkn_'], { entropy: 3 }),
  r('planetscale-oauth-token', uniq(String.raw`pscale_oauth_[\w=\.-]{32,64}`), ['pscale_oauth_'], { entropy: 3 }),
  r('planetscale-password', uniq(String.raw`pscale_pw_(?i)[\w=\.-]{32,64}`, true), ['pscale_pw_'], { entropy: 3 }),
  r('postman-api-token', uniq(String.raw`PMAK-(?i)[a-f0-9]{24}\-[a-f0-9]{34}`), ['pmak-'], { entropy: 3 }),
  r('prefect-api-token', uniq('pnu_[a-zA-Z0-9]{36}'), ['pnu_'], { entropy: 2 }),
  r(
    'private-key',
    String.raw`(?i)-----BEGIN[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----[\s\S-]{64,}?KEY(?: BLOCK)?-----`,
    ['-----begin'],
    { entity: 'PRIVATE_KEY', score: 1, span: [0, 16384] },
  ),
  sc('privateai-api-token', 'private[_-]?ai', '[a-z0-9]{32}', ['privateai', 'private_ai', 'private-ai'], { entropy: 3 }),
  r('pulumi-api-token', uniq('pul-[a-f0-9]{40}'), ['pul-'], { entropy: 2 }),
  // ours: {50,1000} -> {50,}. re2-wasm compiles a wide counted repeat in time quadratic in its width (1.8 s here).
  r('pypi-upload-token', String.raw`pypi-AgEIcHlwaS5vcmc[\w-]{50,}`, ['pypi-ageichlwas5vcmc'], { entropy: 3, span: [0, 1200] }),
  s('rapidapi-access-token', 'rapidapi', '[a-z0-9_-]{50}', ['rapidapi']),
  r('readme-api-token', uniq('rdme_[a-z0-9]{70}'), ['rdme_'], { entropy: 2 }),
  r('rubygems-api-token', uniq('rubygems_[a-f0-9]{48}'), ['rubygems_'], { entropy: 2 }),
  r('scalingo-api-token', uniq(String.raw`tk-us-[\w-]{48}`), ['tk-us-'], { entropy: 2 }),
  s('sendbird-access-id', 'sendbird', UUID, ['sendbird']),
  s('sendbird-access-token', 'sendbird', '[a-f0-9]{40}', ['sendbird']),
  r('sendgrid-api-token', uniq(String.raw`SG\.(?i)[a-z0-9=_\-\.]{66}`), ['sg.'], { entropy: 2 }),
  r('sendinblue-api-token', uniq(String.raw`xkeysib-[a-f0-9]{64}\-(?i)[a-z0-9]{16}`), ['xkeysib-'], { entropy: 2 }),
  s('sentry-access-token', 'sentry', '[a-f0-9]{64}', ['sentry'], { entropy: 3 }),
  r(
    'sentry-org-token',
    String.raw`\bsntrys_eyJpYXQiO[a-zA-Z0-9+/]{10,200}(?:LCJyZWdpb25fdXJs|InJlZ2lvbl91cmwi|cmVnaW9uX3VybCI6)[a-zA-Z0-9+/]{10,200}={0,2}_[a-zA-Z0-9+/]{43}(?:[^a-zA-Z0-9+/]|\z)`,
    ['sntrys_eyjpyxqio'],
    { entropy: 4.5 },
  ),
  r('sentry-user-token', uniq('sntryu_[a-f0-9]{64}'), ['sntryu_'], { entropy: 3.5 }),
  r('settlemint-application-access-token', uniq('sm_aat_[a-zA-Z0-9]{16}'), ['sm_aat'], { entropy: 3 }),
  r('settlemint-personal-access-token', uniq('sm_pat_[a-zA-Z0-9]{16}'), ['sm_pat'], { entropy: 3 }),
  r('settlemint-service-access-token', uniq('sm_sat_[a-zA-Z0-9]{16}'), ['sm_sat'], { entropy: 3 }),
  r('shippo-api-token', uniq('shippo_(?:live|test)_[a-fA-F0-9]{40}'), ['shippo_'], { entropy: 2 }),
  r('shopify-access-token', 'shpat_[a-fA-F0-9]{32}', ['shpat_'], { entropy: 2 }),
  r('shopify-custom-access-token', 'shpca_[a-fA-F0-9]{32}', ['shpca_'], { entropy: 2 }),
  r('shopify-private-app-access-token', 'shppa_[a-fA-F0-9]{32}', ['shppa_'], { entropy: 2 }),
  r('shopify-shared-secret', 'shpss_[a-fA-F0-9]{32}', ['shpss_'], { entropy: 2 }),
  s('sidekiq-secret', 'BUNDLE_ENTERPRISE__CONTRIBSYS__COM|BUNDLE_GEMS__CONTRIBSYS__COM', '[a-f0-9]{8}:[a-f0-9]{8}', [
    'bundle_enterprise__contribsys__com',
    'bundle_gems__contribsys__com',
  ]),
  r(
    'sidekiq-sensitive-url',
    String.raw`(?i)\bhttps?://([a-f0-9]{8}:[a-f0-9]{8})@(?:gems.contribsys.com|enterprise.contribsys.com)(?:[\/|\#|\?|:]|$)`,
    ['gems.contribsys.com', 'enterprise.contribsys.com'],
  ),
  r('slack-app-token', String.raw`(?i)xapp-\d-[A-Z0-9]+-\d+-[a-z0-9]+`, ['xapp'], SLACK),
  r('slack-bot-token', 'xoxb-[0-9]{10,13}-[0-9]{10,13}[a-zA-Z0-9-]*', ['xoxb'], { ...SLACK, entropy: 3 }),
  r('slack-config-access-token', String.raw`(?i)xoxe.xox[bp]-\d-[A-Z0-9]{163,166}`, ['xoxe.xoxb-', 'xoxe.xoxp-'], SLACK),
  r('slack-config-refresh-token', String.raw`(?i)xoxe-\d-[A-Z0-9]{146}`, ['xoxe-'], SLACK),
  r('slack-legacy-bot-token', 'xoxb-[0-9]{8,14}-[a-zA-Z0-9]{18,26}', ['xoxb'], SLACK),
  r('slack-legacy-token', String.raw`xox[os]-\d+-\d+-\d+-[a-fA-F\d]+`, ['xoxo', 'xoxs'], SLACK),
  r('slack-legacy-workspace-token', String.raw`xox[ar]-(?:\d-)?[0-9a-zA-Z]{8,48}`, ['xoxa', 'xoxr'], SLACK),
  r('slack-user-token', 'xox[pe](?:-[0-9]{10,13}){3}-[a-zA-Z0-9-]{28,34}', ['xoxp-', 'xoxe-'], SLACK),
  r('slack-webhook-url', '(?:https?://)?hooks.slack.com/(?:services|workflows|triggers)/[A-Za-z0-9+/]{43,56}', ['hooks.slack.com'], {
    entity: 'SLACK_WEBHOOK_URL',
  }),
  s('snyk-api-token', 'snyk[_.-]?(?:(?:api|oauth)[_.-]?)?(?:key|token)', UUID, ['snyk']),
  // ours: group 1 is the identifier's (login|token); the secret is group 2.
  s('sonar-api-token', 'sonar[_.-]?(login|token)', String.raw`[a-z0-9=_\-]{40}`, ['sonar'], { secretGroup: 2 }),
  r(
    'sourcegraph-access-token',
    uniq(String.raw`\b(sgp_(?:[a-fA-F0-9]{16}|local)_[a-fA-F0-9]{40}|sgp_[a-fA-F0-9]{40}|[a-fA-F0-9]{40})\b`, true),
    ['sgp_', 'sourcegraph'],
    { entropy: 3 },
  ),
  r('square-access-token', uniq(String.raw`(?:EAAA|sq0atp-)[\w-]{22,60}`), ['sq0atp-', 'eaaa'], { entropy: 2 }),
  s('squarespace-access-token', 'squarespace', UUID, ['squarespace']),
  r(
    'stripe-access-token',
    uniq('(?:sk|rk)_(?:test|live|prod)_[a-zA-Z0-9]{10,99}'),
    ['sk_test', 'sk_live', 'sk_prod', 'rk_test', 'rk_live', 'rk_prod'],
    { entity: 'STRIPE_KEY', entropy: 2 },
  ),
  sc('sumologic-access-id', '(?-i:[Ss]umo|SUMO)', 'su[a-zA-Z0-9]{12}', ['sumo'], { entropy: 3 }),
  s('sumologic-access-token', '(?-i:[Ss]umo|SUMO)', '[a-z0-9]{64}', ['sumo'], { entropy: 3 }),
  s('telegram-bot-api-token', 'telegr', String.raw`[0-9]{5,16}:(?-i:A)[a-z0-9_\-]{34}`, ['telegr']),
  s('travisci-access-token', 'travis', '[a-z0-9]{22}', ['travis']),
  r('twilio-api-key', 'SK[0-9a-fA-F]{32}', ['sk'], { entropy: 3, mustContain: /sk[0-9a-f]{32}/i }),
  s('twitch-api-token', 'twitch', '[a-z0-9]{30}', ['twitch']),
  s('twitter-access-secret', 'twitter', '[a-z0-9]{45}', ['twitter']),
  s('twitter-access-token', 'twitter', '[0-9]{15,25}-[a-zA-Z0-9]{20,40}', ['twitter']),
  s('twitter-api-key', 'twitter', '[a-z0-9]{25}', ['twitter']),
  s('twitter-api-secret', 'twitter', '[a-z0-9]{50}', ['twitter']),
  s('twitter-bearer-token', 'twitter', 'A{22}[a-zA-Z0-9%]{80,100}', ['twitter']),
  s('typeform-api-token', 'typeform', String.raw`tfp_[a-z0-9\-_\.=]{59}`, ['tfp_']),
  r('vault-batch-token', uniq(String.raw`hvb\.[\w-]{138,300}`), ['hvb.'], { entropy: 4 }),
  r('vault-service-token', uniq(String.raw`(?:hvs\.[\w-]{90,120}|s\.(?i:[a-z0-9]{24}))`), ['hvs.', 's.'], {
    entropy: 3.5,
    mustContain: /s\.[\w-]{24}/i,
    allow: [{ regexes: [String.raw`s\.[A-Za-z]{24}`] }],
  }),
  s('yandex-access-token', 'yandex', String.raw`t1\.[A-Z0-9a-z_-]+[=]{0,2}\.[A-Z0-9a-z_-]{86}[=]{0,2}`, ['yandex']),
  s('yandex-api-key', 'yandex', String.raw`AQVN[A-Za-z0-9_\-]{35,38}`, ['yandex']),
  s('yandex-aws-access-token', 'yandex', String.raw`YC[a-zA-Z0-9_\-]{38}`, ['yandex']),
  s('zendesk-secret-key', 'zendesk', '[a-z0-9]{40}', ['zendesk']),
];
