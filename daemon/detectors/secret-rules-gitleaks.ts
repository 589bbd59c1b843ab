// gitleaks' default rule set (config/gitleaks.toml at commit 009e025, MIT; see secret-rules.NOTICE)
// translated to data: ids, regexes (RE2 syntax, as gitleaks writes them), keywords, entropy floors
// and allow-lists are gitleaks'. The three builders reproduce gitleaks' own generators, so that the
// ~100 "identifier = value" rules read as one line each. Our changes are marked `ours:`.
import type { SecretRule } from './secret-rule-types.js';
import { GENERIC_STOPWORDS } from './secret-rules-stopwords.js';

type Opt = Partial<Omit<SecretRule, 'id' | 'regex' | 'keywords' | 'source'>>;

const OP = String.raw`(?:=|>|:{1,3}=|\|\||:|=>|\?=|,)`;
const PRE = String.raw`[\x60'"\s=]{0,5}`;
// ours: gitleaks ends a token at a quote, whitespace, ';', an escaped newline or the end of the file.
// Prompts are prose, so a token may also end at ',', ')', ']', '}', '>' or at '.', '!', '?', ':' before a space.
export const END = String.raw`(?:[\x60'"\s;,)\]}>]|[.!?:](?:\s|$)|\\[nr]|$)`;
const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';

/** gitleaks' GenerateSemiGenericRegex, case-insensitive: `<identifier> <operator> <secret>`. */
export function semi(ids: string, secret: string): string {
  return String.raw`(?i)[\w.-]{0,50}?(?:` + ids + String.raw`)(?:[ \t\w.-]{0,20})[\s'"]{0,3}` + OP + PRE + '(' + secret + ')' + END;
}
/** The same with a case-sensitive secret. */
function semiCs(ids: string, secret: string): string {
  return (
    String.raw`[\w.-]{0,50}?(?i:[\w.-]{0,50}?(?:` + ids + String.raw`)(?:[ \t\w.-]{0,20})[\s'"]{0,3})` + OP + PRE + '(' + secret + ')' + END
  );
}
/** gitleaks' GenerateUniqueTokenRegex: a token with a vendor prefix, standing alone. */
function uniq(secret: string, ci = false): string {
  return (ci ? '(?i)' : '') + String.raw`\b(` + secret + ')' + END;
}

function entityOf(id: string): string {
  return id.toUpperCase().replace(/-/g, '_');
}
function r(id: string, regex: string, keywords: string[], opt: Opt = {}): SecretRule {
  return { id, entity: entityOf(id), regex, keywords, score: 0.95, source: 'gitleaks', ...opt };
}
/** An identifier-and-value rule: the value alone is not distinctive, so it scores lower. */
function s(id: string, ids: string, secret: string, keywords: string[], opt: Opt = {}): SecretRule {
  return r(id, semi(ids, secret), keywords, { score: 0.8, ...opt });
}
function sc(id: string, ids: string, secret: string, keywords: string[], opt: Opt = {}): SecretRule {
  return r(id, semiCs(ids, secret), keywords, { score: 0.8, ...opt });
}

const GH = { entity: 'GITHUB_TOKEN', entropy: 3 };
const GL = { entity: 'GITLAB_TOKEN', entropy: 3 };
const SLACK = { entity: 'SLACK_TOKEN', entropy: 2 };
const GITLEAKS_GCP_ALLOW = [
  'AIzaSyabcdefghijklmnopqrstuvwxyz1234567',
  'AIzaSyAnLA7NfeLquW1tJFpx_eQCxoX-oo6YyIs',
  'AIzaSyCkEhVjf3pduRDt6d1yKOMitrUEke8agEM',
  'AIzaSyDMAScliyLx7F0NPDEJi1QmyCgHIAODrlU',
  'AIzaSyD3asb-2pEZVqMkmL6M9N6nHZRR_znhrh0',
  'AIzayDNSXIbFmlXbIE6mCzDLQAqITYefhixbX4A',
  'AIzaSyAdOS2zB6NCsk1pCdZ4-P6GBdi_UUPwX7c',
  'AIzaSyASWm6HmTMdYWpgMnjRBjxcQ9CKctWmLd4',
  'AIzaSyANUvH9H9BsUccjsu2pCmEkOPjjaXeDQgY',
  'AIzaSyA5_iVawFQ8ABuTZNUdcwERLJv_a_p4wtM',
  'AIzaSyA4UrcGxgwQFTfaI3no3t7Lt1sjmdnP5sQ',
  'AIzaSyDSb51JiIcB6OJpwwMicseKRhhrOq1cS7g',
  'AIzaSyBF2RrAIm4a0mO64EShQfqfd2AFnzAvvuU',
  'AIzaSyBcE-OOIbhjyR83gm4r2MFCu4MJmprNXsw',
  'AIzaSyB8qGxt4ec15vitgn44duC5ucxaOi4FmqE',
  'AIzaSyA8vmApnrHNFE0bApF4hoZ11srVL_n0nvY',
];
const CURL_AUTH = String.raw`(?i)(?:Authorization:[ \t]{0,5}(?:Basic[ \t]([a-z0-9+/]{8,}={0,3})|(?:Bearer|(?:Api-)?Token)[ \t]([\w=~@.+/-]{8,})|([\w=~@.+/-]{8,}))|(?:(?:X-(?:[a-z]+-)?)?(?:Api-?)?(?:Key|Token)):[ \t]{0,5}([\w=~@.+/-]{8,}))`;
const NR = 'new-relic|newrelic|new_relic';
const JFROG = 'jfrog|artifactory|bintray|xray';
const K8S_ITEM = String.raw`([\w.-]+:(?:[ \t]*(?:\||>[-+]?)\s+)?[ \t]*(?:["']?[a-z0-9+/]{10,}={0,3}["']?|\{\{[ \t\w"|$:=,.-]+}}|""|''))`;
const K8S_KIND = String.raw`\bkind:[ \t]*["']?\bsecret\b["']?`;

export const GITLEAKS_RULES: readonly SecretRule[] = [
  r(
    '1password-secret-key',
    String.raw`\bA3-[A-Z0-9]{6}-(?:(?:[A-Z0-9]{11})|(?:[A-Z0-9]{6}-[A-Z0-9]{5}))-[A-Z0-9]{5}-[A-Z0-9]{5}-[A-Z0-9]{5}\b`,
    ['a3-'],
    { entity: 'ONEPASSWORD_SECRET_KEY', entropy: 3.8 },
  ),
  r('1password-service-account-token', String.raw`ops_eyJ[a-zA-Z0-9+/]{250,}={0,3}`, ['ops_'], {
    entity: 'ONEPASSWORD_SERVICE_ACCOUNT_TOKEN',
    entropy: 4,
    span: [0, 4096],
  }),
  s('adafruit-api-key', 'adafruit', '[a-z0-9_-]{32}', ['adafruit']),
  s('adobe-client-id', 'adobe', '[a-f0-9]{32}', ['adobe'], { entropy: 2 }),
  r('adobe-client-secret', uniq('p8e-(?i)[a-z0-9]{32}'), ['p8e-'], { entropy: 2 }),
  r('age-secret-key', 'AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}', ['age-secret-key-1']),
  s('airtable-api-key', 'airtable', '[a-z0-9]{17}', ['airtable']),
  s('algolia-api-key', 'algolia', '[a-z0-9]{32}', ['algolia']),
  r('alibaba-access-key-id', uniq('LTAI(?i)[a-z0-9]{20}'), ['ltai'], { entropy: 2 }),
  s('alibaba-secret-key', 'alibaba', '[a-z0-9]{30}', ['alibaba'], { entropy: 2 }),
  r('anthropic-admin-api-key', uniq(String.raw`sk-ant-admin01-[a-zA-Z0-9_\-]{93}AA`), ['sk-ant-admin01'], { entity: 'ANTHROPIC_API_KEY' }),
  r('anthropic-api-key', uniq(String.raw`sk-ant-api03-[a-zA-Z0-9_\-]{93}AA`), ['sk-ant-api03'], { entity: 'ANTHROPIC_API_KEY' }),
  r('artifactory-api-key', String.raw`\bAKCp[A-Za-z0-9]{69}\b`, ['akcp'], { entropy: 4.5 }),
  r('artifactory-reference-token', String.raw`\bcmVmd[A-Za-z0-9]{59}\b`, ['cmvmd'], { entropy: 4.5 }),
  s('asana-client-id', 'asana', '[0-9]{16}', ['asana']),
  s('asana-client-secret', 'asana', '[a-z0-9]{32}', ['asana']),
  r(
    'atlassian-api-token',
    semi('(?-i:ATLASSIAN|[Aa]tlassian)|(?-i:CONFLUENCE|[Cc]onfluence)|(?-i:JIRA|[Jj]ira)', '[a-z0-9]{20}[a-f0-9]{4}')
      + '|'
      + uniq(String.raw`ATATT3[A-Za-z0-9_\-=]{186}`),
    ['atlassian', 'confluence', 'jira', 'atatt3'],
    { entropy: 3.5, score: 0.8 },
  ),
  r(
    'authress-service-client-access-key',
    uniq(String.raw`(?:sc|ext|scauth|authress)_(?i)[a-z0-9]{5,30}\.[a-z0-9]{4,6}\.(?-i:acc)[_-][a-z0-9-]{10,32}\.[a-z0-9+/_=-]{30,120}`),
    ['sc_', 'ext_', 'scauth_', 'authress_'],
    { entropy: 2 },
  ),
  r('aws-access-token', String.raw`\b((?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16})\b`, ['a3t', 'akia', 'asia', 'abia', 'acca'], {
    entity: 'AWS_ACCESS_KEY',
    entropy: 3,
    allow: [{ regexes: ['.+EXAMPLE$'] }],
  }),
  r(
    'azure-ad-client-secret',
    String.raw`(?:^|[\\'"\x60\s>=:(,)])([a-zA-Z0-9_~.]{3}\dQ~[a-zA-Z0-9_~.-]{31,34})(?:$|[\\'"\x60\s<),])`,
    ['q~'],
    { entity: 'AZURE_CLIENT_SECRET', entropy: 3 },
  ),
  s('beamer-api-token', 'beamer', String.raw`b_[a-z0-9=_\-]{44}`, ['beamer']),
  s('bitbucket-client-id', 'bitbucket', '[a-z0-9]{32}', ['bitbucket']),
  s('bitbucket-client-secret', 'bitbucket', String.raw`[a-z0-9=_\-]{64}`, ['bitbucket']),
  s('bittrex-access-key', 'bittrex', '[a-z0-9]{32}', ['bittrex']),
  s('bittrex-secret-key', 'bittrex', '[a-z0-9]{32}', ['bittrex']),
  sc('cisco-meraki-api-key', '(?-i:[Mm]eraki|MERAKI)', '[0-9a-f]{40}', ['meraki'], { entropy: 3 }),
  r('clickhouse-cloud-api-secret-key', String.raw`\b(4b1d[A-Za-z0-9]{38})\b`, ['4b1d'], { entropy: 3 }),
  r('clojars-api-token', '(?i)CLOJARS_[a-z0-9]{60}', ['clojars_'], { entropy: 2 }),
  s('cloudflare-api-key', 'cloudflare', '[a-z0-9_-]{40}', ['cloudflare'], { entropy: 2 }),
  s('cloudflare-global-api-key', 'cloudflare', '[a-f0-9]{37}', ['cloudflare'], { entropy: 2 }),
  r('cloudflare-origin-ca-key', uniq(String.raw`v1\.0-[a-f0-9]{24}-[a-f0-9]{146}`), ['cloudflare', 'v1.0-'], { entropy: 2 }),
  s('codecov-access-token', 'codecov', '[a-z0-9]{32}', ['codecov']),
  sc('cohere-api-token', 'cohere|CO_API_KEY', '[a-zA-Z0-9]{40}', ['cohere', 'co_api_key'], { entropy: 4 }),
  s('coinbase-access-token', 'coinbase', '[a-z0-9_-]{64}', ['coinbase']),
  s('confluent-access-token', 'confluent', '[a-z0-9]{16}', ['confluent']),
  s('confluent-secret-key', 'confluent', '[a-z0-9]{64}', ['confluent']),
  s('contentful-delivery-api-token', 'contentful', String.raw`[a-z0-9=_\-]{43}`, ['contentful']),
  r(
    'curl-auth-header',
    String.raw`\bcurl\b(?:.*?|.*?(?:[\r\n]{1,2}.*?){1,5})[ \t\n\r](?:-H|--header)(?:=|[ \t]{0,5})(?:"`
      + CURL_AUTH
      + `"|'`
      + CURL_AUTH
      + String.raw`')(?:\B|\s|\z)`,
    ['curl'],
    { entity: 'HTTP_CREDENTIALS', entropy: 2.75, span: [0, 4096], generic: true },
  ),
  r(
    'curl-auth-user',
    String.raw`\bcurl\b(?:.*|.*(?:[\r\n]{1,2}.*){1,5})[ \t\n\r](?:-u|--user)(?:=|[ \t]{0,5})("(:[^"]{3,}|[^:"]{3,}:|[^:"]{3,}:[^"]{3,})"|'([^:']{3,}:[^']{3,})'|((?:"[^"]{3,}"|'[^']{3,}'|[\w$@.-]+):(?:"[^"]{3,}"|'[^']{3,}'|[\w$\{}@.-]+)))(?:\s|\z)`,
    ['curl'],
    {
      entity: 'HTTP_CREDENTIALS',
      entropy: 2,
      span: [0, 4096],
      generic: true,
      allow: [
        {
          regexes: [
            String.raw`[^:]+:(?:change(?:it|me)|pass(?:word)?|pwd|test|token|\*+|x+)`,
            String.raw`['"]?<[^>]+>['"]?:['"]?<[^>]+>|<[^:]+:[^>]+>['"]?`,
            String.raw`[^:]+:\[[^]]+]`,
            String.raw`['"]?[^:]+['"]?:['"]?\$(?:\d|\w+|\{(?:\d|\w+)})['"]?`,
            String.raw`\$\([^)]+\):\$\([^)]+\)`,
            String.raw`['"]?\$?{{[^}]+}}['"]?:['"]?\$?{{[^}]+}}['"]?`,
          ],
        },
      ],
    },
  ),
  // ours: gitleaks gives this rule no keywords (it always runs); these three are implied by its regex.
  sc(
    'database-password',
    'db_passw(?:or)?d|database_passw(?:or)?d|pwd',
    '[a-zA-Z0-9:;<@=},!$?^]{1,100}',
    ['db_passw', 'database_passw', 'pwd'],
    { entity: 'PASSWORD', score: 0.7, generic: true },
  ),
  r('databricks-api-token', uniq(String.raw`dapi[a-f0-9]{32}(?:-\d)?`), ['dapi'], { entropy: 3 }),
  s('datadog-access-token', 'datadog', '[a-z0-9]{40}', ['datadog']),
  s('defined-networking-api-token', 'dnkey', String.raw`dnkey-[a-z0-9=_\-]{26}-[a-z0-9=_\-]{52}`, ['dnkey']),
  r('digitalocean-access-token', uniq('doo_v1_[a-f0-9]{64}'), ['doo_v1_'], { entropy: 3 }),
  r('digitalocean-pat', uniq('dop_v1_[a-f0-9]{64}'), ['dop_v1_'], { entropy: 3 }),
  r('digitalocean-refresh-token', uniq('dor_v1_[a-f0-9]{64}', true), ['dor_v1_']),
  s('discord-api-token', 'discord', '[a-f0-9]{64}', ['discord']),
  s('discord-client-id', 'discord', '[0-9]{18}', ['discord'], { entropy: 2 }),
  s('discord-client-secret', 'discord', String.raw`[a-z0-9=_\-]{32}`, ['discord'], { entropy: 2 }),
  r('doppler-api-token', String.raw`dp\.pt\.(?i)[a-z0-9]{43}`, ['dp.pt.'], { entropy: 2 }),
  s('droneci-access-token', 'droneci', '[a-z0-9]{32}', ['droneci']),
  s('dropbox-api-token', 'dropbox', '[a-z0-9]{15}', ['dropbox']),
  s('dropbox-long-lived-api-token', 'dropbox', String.raw`[a-z0-9]{11}(AAAAAAAAAA)[a-z0-9\-_=]{43}`, ['dropbox']),
  s('dropbox-short-lived-api-token', 'dropbox', String.raw`sl\.[a-z0-9\-=_]{135}`, ['dropbox']),
  r('duffel-api-token', String.raw`duffel_(?:test|live)_(?i)[a-z0-9_\-=]{43}`, ['duffel_'], { entropy: 2 }),
  r('dynatrace-api-token', String.raw`dt0c01\.(?i)[a-z0-9]{24}\.[a-z0-9]{64}`, ['dt0c01.'], { entropy: 4 }),
  r('easypost-api-token', String.raw`\bEZAK(?i)[a-z0-9]{54}\b`, ['ezak'], { entropy: 2 }),
  r('easypost-test-api-token', String.raw`\bEZTK(?i)[a-z0-9]{54}\b`, ['eztk'], { entropy: 2 }),
  s('etsy-access-token', '(?-i:ETSY|[Ee]tsy)', '[a-z0-9]{24}', ['etsy'], { entropy: 3 }),
  r('facebook-access-token', uniq(String.raw`\d{15,16}(\||%)[0-9a-z\-_]{27,40}`, true), ['facebook'], { entropy: 3, span: [512, 512] }),
  r('facebook-page-access-token', uniq('EAA[MC](?i)[a-z0-9]{100,}'), ['eaam', 'eaac'], { entropy: 4, span: [0, 2048] }),
  s('facebook-secret', 'facebook', '[a-f0-9]{32}', ['facebook'], { entropy: 3 }),
  s('fastly-api-token', 'fastly', String.raw`[a-z0-9=_\-]{32}`, ['fastly']),
  s('finicity-api-token', 'finicity', '[a-f0-9]{32}', ['finicity']),
  s('finicity-client-secret', 'finicity', '[a-z0-9]{20}', ['finicity']),
  s('finnhub-access-token', 'finnhub', '[a-z0-9]{20}', ['finnhub']),
  s('flickr-access-token', 'flickr', '[a-z0-9]{32}', ['flickr']),
  r('flutterwave-encryption-key', 'FLWSECK_TEST-(?i)[a-h0-9]{12}', ['flwseck_test'], { entropy: 2 }),
  r('flutterwave-public-key', 'FLWPUBK_TEST-(?i)[a-h0-9]{32}-X', ['flwpubk_test'], { entropy: 2 }),
  r('flutterwave-secret-key', 'FLWSECK_TEST-(?i)[a-h0-9]{32}-X', ['flwseck_test'], { entropy: 2 }),
  r(
    'flyio-access-token',
    uniq(String.raw`(?:fo1_[\w-]{43}|fm1[ar]_[a-zA-Z0-9+\/]{100,}={0,3}|fm2_[a-zA-Z0-9+\/]{100,}={0,3})`),
    ['fo1_', 'fm1', 'fm2_'],
    { entropy: 4, span: [0, 4096] },
  ),
  r('frameio-api-token', String.raw`fio-u-(?i)[a-z0-9\-_=]{64}`, ['fio-u-']),
  // gitleaks scopes this rule to *.php; a prompt has no path, so it applies everywhere.
  r('freemius-secret-key', String.raw`(?i)["']secret_key["']\s*=>\s*["'](sk_[\S]{29})["']`, ['secret_key']),
  s('freshbooks-access-token', 'freshbooks', '[a-z0-9]{64}', ['freshbooks']),
  r('gcp-api-key', uniq(String.raw`AIza[\w-]{35}`), ['aiza'], {
    entity: 'GCP_API_KEY',
    entropy: 4,
    allow: [{ regexes: GITLEAKS_GCP_ALLOW }],
  }),
  ...genericRules(),
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

/** generic-api-key, with its three allow-lists (the yocto-recipe one is path-scoped and left out). */
function genericRules(): SecretRule[] {
  return [
    s(
      'generic-api-key',
      String.raw`access|auth|(?-i:[Aa]pi|API)|credential|creds|key|passw(?:or)?d|secret|token`,
      String.raw`[\w.=-]{10,150}|[a-z0-9][a-z0-9+/]{11,}={0,3}`,
      ['access', 'api', 'auth', 'key', 'credential', 'creds', 'passwd', 'password', 'secret', 'token'],
      {
        entity: 'GENERIC_SECRET',
        entropy: 3.5,
        requireDigit: true,
        // ours: gitleaks' match is at most ~260 characters (a 150-character value); relax() opens the
        // value's bound, so a longer match, e.g. a flood of `token=token=...`, is dropped before its groups are taken.
        maxMatch: 400,
        score: 0.7,
        generic: true,
        allow: [
          { regexes: ['^[a-zA-Z_.-]+$'] },
          {
            target: 'match',
            regexes: [
              String.raw`(?i)(?:access(?:ibility|or)|access[_.-]?id|random[_.-]?access|api[_.-]?(?:id|name|version)|rapid|capital|[a-z0-9-]*?api[a-z0-9-]*?:jar:|author|X-MS-Exchange-Organization-Auth|Authentication-Results|(?:credentials?[_.-]?id|withCredentials)|(?:bucket|foreign|hot|idx|natural|primary|pub(?:lic)?|schema|sequence)[_.-]?key|(?:turkey)|key[_.-]?(?:alias|board|code|frame|id|length|mesh|name|pair|press(?:ed)?|ring|selector|signature|size|stone|storetype|word|up|down|left|right)|key[_.-]?vault[_.-]?(?:id|name)|keyVaultToStoreSecrets|key(?:store|tab)[_.-]?(?:file|path)|issuerkeyhash|(?-i:[DdMm]onkey|[DM]ONKEY)|keying|(?:secret)[_.-]?(?:length|name|size)|UserSecretsId|(?:csrf)[_.-]?token|(?:io\.jsonwebtoken[ \t]?:[ \t]?[\w-]+)|(?:api|credentials|token)[_.-]?(?:endpoint|ur[il])|public[_.-]?token|(?:key|token)[_.-]?file|(?-i:(?:[A-Z_]+=\n[A-Z_]+=|[a-z_]+=\n[a-z_]+=)(?:\n|\z))|(?-i:(?:[A-Z.]+=\n[A-Z.]+=|[a-z.]+=\n[a-z.]+=)(?:\n|\z)))`,
            ],
          },
          { stopwords: GENERIC_STOPWORDS },
          // ours: keys that name a record rather than unlock anything.
          { target: 'match', regexes: [String.raw`(?i)(?:idempotency|cache|sort|partition|dedup(?:e|lication)?|correlation)[_.-]?key`] },
          { target: 'line', regexes: ['--mount=type=secret,', String.raw`import[ \t]+{[ \t\w,]+}[ \t]+from[ \t]+['"][^'"]+['"]`] },
        ],
      },
    ),
  ];
}

/** gitleaks' global allow-list: applied to every rule's secret. Path entries are left out (no paths here). */
export const GITLEAKS_GLOBAL_ALLOW: readonly string[] = [
  '(?i)^true|false|null$',
  String.raw`^(?i:a+|b+|c+|d+|e+|f+|g+|h+|i+|j+|k+|l+|m+|n+|o+|p+|q+|r+|s+|t+|u+|v+|w+|x+|y+|z+|\*+|\.+)$`,
  String.raw`^\$(?:\d+|{\d+})$`,
  String.raw`^\$(?:[A-Z_]+|[a-z_]+)$`,
  String.raw`^\${(?:[A-Z_]+|[a-z_]+)}$`,
  String.raw`^\{\{[ \t]*[\w ().|]+[ \t]*}}$`,
  String.raw`^\$\{\{[ \t]*(?:(?:env|github|secrets|vars)(?:\.[A-Za-z]\w+)+[\w "'&./=|]*)[ \t]*}}$`,
  String.raw`^%(?:[A-Z_]+|[a-z_]+)%$`,
  String.raw`^%[+\-# 0]?[bcdeEfFgGoOpqstTUvxX]$`,
  String.raw`^\{\d{0,2}}$`,
  String.raw`^@(?:[A-Z_]+|[a-z_]+)@$`,
  String.raw`^/Users/(?i)[a-z0-9]+/[\w .-/]+$`,
  String.raw`^/(?:bin|etc|home|opt|tmp|usr|var)/[\w ./-]+$`,
];
export const GITLEAKS_GLOBAL_STOPWORDS: readonly string[] = ['014df517-39d1-4453-b7b3-9930c563627c', 'abcdefghijklmnopqrstuvwxyz'];

/** Rules of gitleaks.toml not translated, and why. */
export const GITLEAKS_DROPPED: readonly { id: string; why: string }[] = [
  { id: 'pkcs12-file', why: 'a path-only rule (*.p12, *.pfx file names); a prompt has no path' },
  { id: 'hashicorp-tf-password', why: 'scoped to *.tf/*.hcl paths; without the path it is a looser generic-api-key, which already runs' },
];
