// The secret rule set, as data: gitleaks' default rules (secret-rules-gitleaks.ts, MIT, notice in
// secret-rules.NOTICE) plus ours for what gitleaks leaves out: the AWS secret access key, Azure
// storage keys and SAS signatures, passwords inside connection strings and URLs, this gateway's own tokens,
// values that look generated or chosen assigned to secret-like names, private keys without an END line,
// and token formats gitleaks misses or binds to a nearby name (Discord, Telegram, Mailchimp,
// Artifactory, Braintree, FCM, Okta, Dropbox, Twilio SIDs, short Slack tokens, unsigned JWTs). Ours are
// written from the vendors' published formats, not taken from another scanner. Ours use
// unbounded repeats over classes that exclude whitespace: RE2 matches them in linear time, the
// keyword window bounds them, and re2-wasm compiles wide counted repeats slowly.
import type { SecretAllowList, SecretRule } from './secret-rule-types.js';
import { VENDOR_RULES } from './secret-rules-vendors.js';
import { END, GITLEAKS_DROPPED, GITLEAKS_GLOBAL_ALLOW, GITLEAKS_GLOBAL_STOPWORDS, GITLEAKS_RULES, semi } from './secret-rules-gitleaks.js';

// Passwords in documentation: empty-looking, templated or the well-known defaults of docker images.
const PLACEHOLDER_PASSWORD = String.raw`(?i)^(?:\*+|x+|\.+|_+|-+|\?+|<[^>]*>|\[[^\]]*\]|\{[^}]*\}|\$\{[^}]*\}|\$\([^)]*\)|\$[a-z_][a-z0-9_]*|%[a-z_][a-z0-9_]*%|:[a-z_]+|pass(?:word|wd)?\d{0,3}|pwd?|secret|changeme|change_me|changeit|example|sample|dummy|test|testing|your[_-]?pass(?:word)?|my[_-]?pass(?:word)?|mysecretpassword|pa\$\$w0rd|p@ssw0rd|redacted|placeholder|foo|bar|foobar|root|admin|user|guest|postgres|mysql|mongo|redis)$`;
const PLACEHOLDERS = [{ regexes: [PLACEHOLDER_PASSWORD] }];
const DB_SCHEMES = String.raw`postgres(?:ql)?|mysql|mariadb|mongodb(?:\+srv)?|rediss?|amqps?|mssql|sqlserver|oracle|cockroachdb|clickhouse|couchdb|neo4j(?:\+s)?|nats|kafka`;
const NOT_URL = String.raw`\s'"\x60<>`;
// The host after a URL's user:password@. A password may hold # and @ (written unencoded, as people
// do): the password runs to the last @ that a host follows.
const HOST = String.raw`[A-Za-z0-9\[][A-Za-z0-9.:\]-]*(?:[/?#\s'"\x60<>,;)]|$)`;

// A name, optionally quoted or plural, then `=`, `:`, `:=` or `=>`, then a quoted or a bare value.
// The bare value ends before trailing punctuation, so prose's "password: x." loses its full stop.
function assignment(names: string): string {
  return (
    String.raw`(?i)(?:^|[^\w.-])[\w.-]{0,40}?(?:`
    + names
    + String.raw`)s?\\?["'\x60]?\]?[ \t]*(?::=|=>|=|:)[ \t]*(?:\\?["'\x60]([^"'\x60\s\\]{8,})\\?["'\x60]|([^"'\x60\s\\]{7,}[^"'\x60\s\\,.;:)\]}>(\[])[.,;:!?)\]}>]*(?:\s|$))`
  );
}

const PASSWORD_NAMES = String.raw`passw(?:or)?d|passphrase|passe?|pwd|passwort|kennwort|contrase(?:ña|na)|clave|wachtwoord|has(?:ło|lo)|senha`;
const SECRET_NAMES = String.raw`secret|token|auth|credentials?|bearer|api[_.-]?key|(?:access|secret|private|signing|encryption|master|app|client|account|service|license|subscription)[_.-]?key`;

// <password>...</password>: a rule of its own, as one alternative of the above it made splitting every match into groups 5x slower.
function xmlElement(names: string): string {
  return String.raw`(?i)<[\w.-]{0,40}?(?:` + names + String.raw`)s?>([^<\s]{8,})</`;
}

// Values that are references, not secrets: dotted or called identifiers (process.env.X, os.environ[,
// config.get()), types (Readonly<...>), paths and URLs, templates and the vocabulary of placeholders.
const VALUE_PLACEHOLDERS: SecretAllowList = {
  stopwords: [
    'your',
    'example',
    'sample',
    'placeholder',
    'changeme',
    'change_me',
    'change-me',
    'replace',
    'insert',
    'xxxx',
    'redacted',
    'dummy',
    '****',
  ],
};
const VALUE_ALLOW: readonly SecretAllowList[] = [
  ...PLACEHOLDERS,
  VALUE_PLACEHOLDERS,
  {
    regexes: [
      // a.b.c, a?.b, a::b, a->b, f(...), a[...], Generic<...>
      String.raw`^[A-Za-z_$][\w$]*(?:(?:\??\.|::|->)[A-Za-z_$][\w$]*)*(?:(?:\??\.|::|->)[A-Za-z_$][\w$]*|[(\[<].*)$`,
      // a URL or a path; a literal list, object, type or tuple
      String.raw`^(?:[a-z][a-z0-9+.-]*://|[~.]?/|[\[{<(])`,
      // a template inside the value: prefix-${NAME}, ${f(x)...}, {{ .Values.x }}, %(name)s
      String.raw`\$\{[A-Za-z_][\w.:-]*(?:[}(]|$)|\{\{[ \t]*[\w.| ]+[ \t]*\}\}|%\([\w.]+\)s`,
    ],
  },
];

/** Before a token: the start or a character that cannot be inside base64 or base64url (\b would let a blob's `/` or `+` start one); `=` pads only the end of one, so TOKEN=... counts. */
const B64_EDGE = String.raw`(?:^|[^A-Za-z0-9+/_-])`;
const DIGIT_COLON = Array.from({ length: 10 }, (_, d) => `${d}:`);
const SLACK_PREFIXES = ['xoxa-', 'xoxb-', 'xoxp-', 'xoxo-', 'xoxs-', 'xoxr-'];

function local(id: string, entity: string, regex: string, keywords: string[], opt: Partial<SecretRule> = {}): SecretRule {
  return { id, entity, regex, keywords, score: 0.9, source: 'local', ...opt };
}

export const LOCAL_RULES: readonly SecretRule[] = [
  local(
    'aws-secret-access-key',
    'AWS_SECRET_KEY',
    semi(String.raw`aws[_.-]?secret[_.-]?(?:access[_.-]?)?key|secret[_.-]?access[_.-]?key`, '[a-z0-9/+=]{40}'),
    [
      'aws_secret',
      'aws-secret',
      'aws.secret',
      'awssecret',
      'secret_access_key',
      'secret-access-key',
      'secret.access.key',
      'secretaccesskey',
    ],
    // AWS documents wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY next to AKIAIOSFODNN7EXAMPLE; gitleaks allows the latter.
    { entropy: 4, allow: [{ regexes: ['(?i)example'] }] },
  ),
  local('azure-storage-account-key', 'AZURE_STORAGE_KEY', String.raw`(?i)\bAccountKey\s*=\s*([a-z0-9+/]{86}==)`, ['accountkey'], {
    entropy: 4,
  }),
  local(
    'azure-sas-token',
    'AZURE_SAS_TOKEN',
    String.raw`(?i)[?&]sv=\d{4}-\d{2}-\d{2}&[^` + NOT_URL + String.raw`]*?\bsig=([a-z0-9%+/]{40,}(?:%3d|=){0,2})` + END,
    ['sig='],
    { entropy: 4 },
  ),
  local(
    'connection-string-password',
    'CONNECTION_STRING',
    String.raw`(?i)\b(?:` + DB_SCHEMES + String.raw`)://[^:/?#@` + NOT_URL + String.raw`]*:([^/` + NOT_URL + String.raw`]+)@` + HOST,
    [
      'postgres',
      'mysql',
      'mariadb',
      'mongodb',
      'redis',
      'amqp',
      'mssql',
      'sqlserver',
      'oracle',
      'cockroachdb',
      'clickhouse',
      'couchdb',
      'neo4j',
      'nats',
      'kafka',
    ],
    { allow: PLACEHOLDERS, generic: true },
  ),
  local(
    'jdbc-password-parameter',
    'CONNECTION_STRING',
    String.raw`(?i)\bjdbc:[a-z0-9]+:[^` + NOT_URL + String.raw`]*?[?&;]password=([^&;` + NOT_URL + ']+)',
    ['jdbc:'],
    { allow: PLACEHOLDERS, generic: true },
  ),
  local(
    'ado-connection-string-password',
    'CONNECTION_STRING',
    String.raw`(?i)\b(?:server|data source|host)\s*=[^;'"\n]+;[^'"\n]*?\b(?:password|pwd)\s*=\s*([^;'"\n]+)`,
    ['password', 'pwd'],
    { allow: PLACEHOLDERS, span: [900, 900], generic: true },
  ),
  // This gateway's own bearer tokens (project/tokens.ts): a project key, user token or extension token pasted into traffic.
  local('gateway-token', 'GATEWAY_TOKEN', String.raw`\bgg[pue]_[A-Za-z0-9_-]{43}`, ['ggp_', 'ggu_', 'gge_'], {
    secretGroup: 0,
    score: 0.95,
  }),
  local(
    'url-credentials',
    'CREDENTIALS_IN_URL',
    // Any scheme (mqtt, smb, ws, svn...); the database schemes above take theirs first.
    String.raw`(?i)\b[a-z][a-z0-9+.-]{1,20}://[^:/?#@` + NOT_URL + String.raw`]+:([^/` + NOT_URL + String.raw`]+)@` + HOST,
    ['://'],
    { allow: [...PLACEHOLDERS, VALUE_PLACEHOLDERS], score: 0.85, generic: true },
  ),
  // A value assigned to a secret-like name in code, YAML (nested keys too: the name is matched on
  // its own line), INI, .env and JSON. generic-api-key (gitleaks) already takes `[\w.=-]` values with a
  // digit; these take the rest (punctuation, no digit) when the value looks generated or chosen.
  // The name in the supported languages too: Passwort/Kennwort, mot de passe, contraseña, wachtwoord, hasło.
  local(
    'password-assignment',
    'PASSWORD',
    assignment(PASSWORD_NAMES),
    ['pass', 'pwd', 'kennwort', 'contrase', 'clave', 'wachtwoord', 'hasło', 'haslo', 'senha'],
    {
      random: true,
      allow: VALUE_ALLOW,
      maxMatch: 512,
      score: 0.8,
      generic: true,
    },
  ),
  local('secret-assignment', 'GENERIC_SECRET', assignment(SECRET_NAMES), ['secret', 'token', 'auth', 'credential', 'bearer', 'key'], {
    random: true,
    allow: VALUE_ALLOW,
    maxMatch: 512,
    score: 0.75,
    generic: true,
  }),
  local(
    'password-xml-element',
    'PASSWORD',
    xmlElement(PASSWORD_NAMES),
    ['pass', 'pwd', 'kennwort', 'contrase', 'clave', 'wachtwoord', 'hasło', 'haslo', 'senha'],
    {
      random: true,
      allow: VALUE_ALLOW,
      maxMatch: 512,
      score: 0.8,
      generic: true,
    },
  ),
  local('secret-xml-element', 'GENERIC_SECRET', xmlElement(SECRET_NAMES), ['secret', 'token', 'auth', 'credential', 'bearer', 'key'], {
    random: true,
    allow: VALUE_ALLOW,
    maxMatch: 512,
    score: 0.75,
    generic: true,
  }),
  // 32 to 40 hex digits (an API key, a signing secret, an HMAC key) assigned to a secret-like name:
  // hex has two classes and sometimes less entropy than the generic rules ask, so it has its own rule.
  local(
    'hex-secret-assignment',
    'GENERIC_SECRET',
    String.raw`(?i)(?:^|[^\w.-])[\w.-]{0,40}?(?:`
      + SECRET_NAMES
      + '|'
      + PASSWORD_NAMES
      + String.raw`|key|authorization)s?\\?["'\x60]?\]?[ \t]*(?::=|=>|=|:)[ \t]*\\?["'\x60]?(?-i:([0-9a-f]{32,40}|[0-9A-F]{32,40}))(?:[^0-9A-Za-z_]|$)`,
    ['secret', 'token', 'auth', 'credential', 'bearer', 'key', 'pass', 'pwd'],
    { entropy: 2.5, requireDigit: true, allow: VALUE_ALLOW, maxMatch: 200, score: 0.75, generic: true },
  ),
  // An HTTP Authorization header's credentials, in a request, a log line or code.
  local(
    'authorization-header',
    'HTTP_CREDENTIALS',
    String.raw`(?i)\b(?:proxy-)?authorization["']?[ \t]*[:=][ \t]*["']?(?:bearer|token|basic|apikey|api-key|sso-key|digest)[ \t]+([A-Za-z0-9._~+/=:-]{16,})`,
    ['authorization'],
    { entropy: 3, allow: VALUE_ALLOW, maxMatch: 4096, score: 0.85, generic: true },
  ),
  // A secret given on a command line: --api-key X, --token=X, -p X is left alone (too common).
  local(
    'command-line-secret',
    'GENERIC_SECRET',
    String.raw`(?i)(?:^|\s)--(?:[a-z]+[-_])?(?:api[-_]?key|token|secret|password|passwd|auth[-_]?token|access[-_]?key)(?:=|[ \t]+)["']?([^\s"'\x60]{8,})`,
    ['api-key', 'api_key', 'apikey', 'token', 'secret', 'password', 'passwd', 'access-key', 'access_key'],
    { random: true, allow: VALUE_ALLOW, maxMatch: 512, score: 0.75, generic: true },
  ),
  // A private key's BEGIN line and the key-like lines after it, with or without an END line and
  // whatever the body holds (gitleaks' private-key wants an END line and 64 characters between).
  local(
    'private-key-begin',
    'PRIVATE_KEY',
    String.raw`(?i)-----BEGIN[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----(?:(?:\r?\n|(?:\\r)?\\n)[ \t]*[\w-]+:[^\n]*)*(?:\r?\n|(?:\\r)?\\n)[ \t]*[A-Za-z0-9+/=_.!-]{12,}[^\n]*(?:(?:\r?\n|(?:\\r)?\\n)[ \t]*[^\s-][^\n]*)*(?:(?:\r?\n|(?:\\r)?\\n)[ \t]*-----END[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----)?`,
    ['-----begin'],
    {
      secretGroup: 0,
      score: 1,
      span: [0, 16384],
      // A body written as a placeholder: one character repeated, or the template's own words.
      allow: [{ target: 'match', regexes: [String.raw`(?i)-----\r?\n[ \t]*(?:x+|\.+|\*+|a+|0+)[ \t]*(?:\r?\n|$)`] }],
    },
  ),
  // Formats of https://discord.com/developers/docs/reference: the bot's id (a decimal snowflake) in
  // base64 (M, N or O first), a timestamp, an HMAC. No word announces it: the keywords are its first
  // letters, so the rule runs over the whole text (one RE2 pass; the dots make matches rare).
  local(
    'discord-bot-token',
    'DISCORD_BOT_TOKEN',
    B64_EDGE + String.raw`([MNO][A-Za-z0-9_-]{23,27}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,40})` + END,
    ['m', 'n', 'o'],
    {
      entropy: 3.5,
      requireDigit: true,
      span: [0, 100],
      mustContain: /\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27}/,
    },
  ),
  // The bot's numeric id, a colon, 35 characters (https://core.telegram.org/bots/api#authorizing-your-bot).
  local('telegram-bot-token', 'TELEGRAM_BOT_TOKEN', String.raw`\b(\d{5,16}:[A-Za-z0-9_-]{35})` + END, DIGIT_COLON, {
    entropy: 3.5,
    random: true,
    span: [12, 48],
    mustContain: /\d:[A-Za-z0-9_-]{35}/,
  }),
  // 32 hex digits and the data centre, e.g. -us12.
  local('mailchimp-key-with-dc', 'MAILCHIMP_API_KEY', B64_EDGE + String.raw`([0-9a-z]{32}-us\d{1,2})\b`, ['-us'], {
    entropy: 3,
    span: [40, 8],
  }),
  // JFrog Artifactory API keys (AKC...) and reference tokens (base64 of "reftkn:..."), at any length.
  local(
    'artifactory-token',
    'ARTIFACTORY_API_KEY',
    B64_EDGE + String.raw`(AKC[A-Za-z0-9]{10,}|AP[0-9A-F][A-Za-z0-9]{8,})` + END,
    ['akc', 'ap'],
    {
      entropy: 3.3,
      random: true,
      span: [0, 200],
      mustContain: /akc[a-z0-9]{10}|ap[0-9a-f][a-z0-9]{8}/i,
      // API keys are 73 characters; a longer run is a base64 blob cut by a keyword window's edge
      maxMatch: 100,
    },
  ),
  local(
    'artifactory-reference-token-any',
    'ARTIFACTORY_REFERENCE_TOKEN',
    String.raw`\b(cmVmdGtu[A-Za-z0-9]{24,}={0,2})` + END,
    ['cmvmdgtu'],
    {
      entropy: 3.3,
      span: [0, 200],
    },
  ),
  local(
    'braintree-access-token',
    'BRAINTREE_ACCESS_TOKEN',
    String.raw`\baccess_token\$(?:production|sandbox|development|qa)\$[0-9a-z]{16}\$[0-9a-f]{32}\b`,
    ['access_token$'],
    { secretGroup: 0, score: 0.95, span: [0, 100] },
  ),
  // Firebase Cloud Messaging's legacy server key: AAAA and 7 characters, ':', ~140 characters (APA91b... mostly).
  local('firebase-fcm-server-key', 'FIREBASE_FCM_KEY', String.raw`\bAAAA[A-Za-z0-9_-]{7}:[A-Za-z0-9_-]{100,}`, ['aaaa'], {
    secretGroup: 0,
    entropy: 4,
    score: 0.95,
    span: [0, 400],
  }),
  // 42 characters from "00" in the text near "okta" (gitleaks' okta-access-token wants `name = value`).
  local('okta-api-token', 'OKTA_API_TOKEN', B64_EDGE + String.raw`(00[A-Za-z0-9_-]{40})` + END, ['okta'], {
    entropy: 3.5,
    random: true,
    span: [256, 256],
  }),
  local('dropbox-short-lived-token', 'DROPBOX_SHORT_LIVED_API_TOKEN', String.raw`\bsl\.(?:u\.)?[A-Za-z0-9_=-]{100,}`, ['sl.'], {
    secretGroup: 0,
    entropy: 4,
    span: [0, 2048],
  }),
  local(
    'dropbox-long-lived-token',
    'DROPBOX_LONG_LIVED_API_TOKEN',
    B64_EDGE + String.raw`([A-Za-z0-9]{11}AAAAAAAAAA[A-Za-z0-9_=-]{43})` + END,
    ['aaaaaaaaaa'],
    {
      entropy: 3.5,
      span: [16, 64],
    },
  ),
  // A Twilio account SID; with it in the text, an auth token is one assignment away (secret-assignment).
  local('twilio-account-sid', 'TWILIO_ACCOUNT_SID', B64_EDGE + String.raw`(AC[0-9a-z]{32})\b`, ['ac'], {
    entropy: 3,
    span: [0, 40],
    mustContain: /ac[0-9a-z]{32}/i,
    score: 0.85,
  }),
  // Slack tokens with fewer numeric parts than gitleaks' rules require.
  local('slack-token-short', 'SLACK_TOKEN', String.raw`(?i)\b(xox[abposr]-(?:\d+-)+[a-z0-9]{6,})` + END, SLACK_PREFIXES, {
    entropy: 2.5,
    span: [0, 300],
  }),
  // Compact JWTs whose parts use base64url's - and _, and unsigned ones (alg none: nothing after the second dot, or no second dot).
  local(
    'jwt-compact',
    'JWT',
    String.raw`\b(eyJ[A-Za-z0-9_-]{8,}={0,2}\.eyJ[A-Za-z0-9_-]{4,}={0,2}(?:\.(?:[A-Za-z0-9_-]{10,}={0,2})?)?)` + END,
    ['eyj'],
    {
      entropy: 3,
      span: [0, 8192],
    },
  ),
];

export const SECRET_RULES: readonly SecretRule[] = [...GITLEAKS_RULES, ...LOCAL_RULES, ...VENDOR_RULES];
export const GLOBAL_ALLOW: SecretAllowList = { regexes: GITLEAKS_GLOBAL_ALLOW, stopwords: GITLEAKS_GLOBAL_STOPWORDS };
export const DROPPED_RULES = GITLEAKS_DROPPED;

/**
 * A string that a rule's pattern matches, or nearly: each group's first alternative, each repeat's
 * least count, each class's first member (a character outside a negated class). For warming RE2 up.
 */
export function sampleOf(source: string): string {
  let i = 0;
  const alternatives = (): string => {
    const first = sequence();
    while (source[i] === '|') {
      i++;
      sequence();
    }
    return first;
  };
  const sequence = (): string => {
    let out = '';
    while (i < source.length && source[i] !== '|' && source[i] !== ')') out += repeated(atom());
    return out;
  };
  const repeated = (unit: string): string => {
    const q = /^(?:[*?]|\+|\{(\d+)(?:,\d*)?\})\??/.exec(source.slice(i));
    if (q === null) return unit;
    i += q[0].length;
    return unit.repeat(q[0][0] === '+' ? 1 : Number(q[1] ?? 0));
  };
  const atom = (): string => {
    const c = source[i++]!;
    if (c === '(') return group();
    if (c === '[') return charClass();
    if (c === '\\') return escaped(source[i++] ?? '');
    return c === '^' || c === '$' ? '' : c === '.' ? 'a' : c;
  };
  const group = (): string => {
    if (source[i] === '?') {
      const head = /^\?(?:P?<\w+>|[imsU-]*:|[imsU-]*\))/.exec(source.slice(i))?.[0] ?? '?';
      i += head.length;
      if (head.endsWith(')')) return '';
    }
    const inner = alternatives();
    i++;
    return inner;
  };
  const charClass = (): string => {
    const end = /^\^?\]?(?:\\.|[^\]])*\]/s.exec(source.slice(i - 1))?.[0] ?? '[a]';
    i += end.length - 1;
    try {
      const re = new RegExp(end.replace(/\\z/g, ''), 'u');
      return ['a', '0', 'A', '_', ' ', '.', '#'].find((ch) => re.test(ch)) ?? 'a';
    } catch {
      return 'a';
    }
  };
  const escaped = (e: string): string => {
    if ('bBAz'.includes(e)) return '';
    const known: Record<string, string> = { d: '0', w: 'a', s: ' ', D: 'a', W: ' ', S: 'a', n: '\n', r: '\r', t: '\t' };
    if (known[e] !== undefined) return known[e]!;
    if (e === 'x') {
      const hex = /^(?:\{([0-9a-fA-F]+)\}|([0-9a-fA-F]{2}))/.exec(source.slice(i));
      i += hex?.[0].length ?? 0;
      return String.fromCodePoint(parseInt(hex?.[1] ?? hex?.[2] ?? '61', 16));
    }
    if (e === 'p' || e === 'P') {
      i += source[i] === '{' ? source.indexOf('}', i) - i + 1 : 1;
      return 'a';
    }
    return e;
  };
  return alternatives();
}
