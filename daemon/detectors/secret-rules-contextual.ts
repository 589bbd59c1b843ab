// Our secret rules for credentials known by where they sit rather than by a vendor's prefix: the AWS
// secret access key and Azure storage keys and SAS signatures by their names, passwords in connection
// strings and URLs, values that look generated or chosen assigned to secret-like names (code, YAML,
// INI, .env, JSON, XML), Authorization headers, command-line flags, private keys without an END line;
// and this gateway's own tokens. Part of the rule set of secret-rules.ts, in this order.
import { local, type SecretAllowList, type SecretRule } from './secret-rule-types.js';
import { END, semi } from './secret-rules-gitleaks-builders.js';

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

export const CONTEXTUAL_RULES: readonly SecretRule[] = [
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
];
