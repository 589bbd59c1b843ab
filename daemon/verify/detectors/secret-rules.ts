// The secret rule set, as data: gitleaks' default rules (secret-rules-gitleaks.ts, MIT, notice in
// secret-rules.NOTICE) plus ours for what gitleaks leaves out: the AWS secret access key, Azure
// storage keys and SAS signatures, and passwords inside connection strings and URLs. Ours use
// unbounded repeats over classes that exclude whitespace: RE2 matches them in linear time, the
// keyword window bounds them, and re2-wasm compiles wide counted repeats slowly.
import { END, GITLEAKS_DROPPED, GITLEAKS_GLOBAL_ALLOW, GITLEAKS_GLOBAL_STOPWORDS, GITLEAKS_RULES, semi } from './secret-rules-gitleaks.js';

export type AllowTarget = 'secret' | 'match' | 'line';

/** A match is dropped when one regex matches its target, or its secret contains one stop-word (lower-cased). */
export interface SecretAllowList {
  readonly regexes?: readonly string[];
  readonly stopwords?: readonly string[];
  /** What the regexes test: the secret (default), the whole match, or the line holding the match. */
  readonly target?: AllowTarget;
}

export interface SecretRule {
  readonly id: string;
  readonly entity: string;
  /** RE2 syntax; case-insensitivity is written inline, `(?i)`, as gitleaks writes it. */
  readonly regex: string;
  /** Lower-case; the rule runs only near an occurrence of one of them in the lower-cased text. */
  readonly keywords: readonly string[];
  /** The secret's Shannon entropy (bits per character) must exceed this. */
  readonly entropy?: number;
  /** Capture group holding the secret: default the first that took part in the match; 0 = the whole match. */
  readonly secretGroup?: number;
  /** gitleaks' rule for generic-*: an entropy-checked secret must also contain a digit. */
  readonly requireDigit?: boolean;
  readonly allow?: readonly SecretAllowList[];
  /** Characters searched before and after a keyword hit; default [128, 512]. */
  readonly span?: readonly [number, number];
  /** A generic finding yields to a vendor finding that overlaps it. */
  readonly generic?: boolean;
  readonly score: number;
  readonly source: 'gitleaks' | 'local';
}

// Passwords in documentation: empty-looking, templated or the well-known defaults of docker images.
const PLACEHOLDER_PASSWORD = String.raw`(?i)^(?:\*+|x+|\.+|_+|-+|\?+|<[^>]*>|\[[^\]]*\]|\{[^}]*\}|\$\{[^}]*\}|\$\([^)]*\)|\$[a-z_][a-z0-9_]*|%[a-z_][a-z0-9_]*%|:[a-z_]+|pass(?:word|wd)?\d{0,3}|pwd|secret|changeme|change_me|changeit|example|sample|dummy|test|testing|your[_-]?pass(?:word)?|my[_-]?pass(?:word)?|mysecretpassword|pa\$\$w0rd|p@ssw0rd|redacted|placeholder|foo|bar|foobar|root|admin|user|guest|postgres|mysql|mongo|redis)$`;
const PLACEHOLDERS = [{ regexes: [PLACEHOLDER_PASSWORD] }];
const DB_SCHEMES = String.raw`postgres(?:ql)?|mysql|mariadb|mongodb(?:\+srv)?|rediss?|amqps?|mssql|sqlserver|oracle|cockroachdb|clickhouse|couchdb|neo4j(?:\+s)?|nats|kafka`;
const NOT_URL = String.raw`\s'"\x60<>`;

function local(id: string, entity: string, regex: string, keywords: string[], opt: Partial<SecretRule> = {}): SecretRule {
  return { id, entity, regex, keywords, score: 0.9, source: 'local', ...opt };
}

export const LOCAL_RULES: readonly SecretRule[] = [
  local('aws-secret-access-key', 'AWS_SECRET_KEY',
    semi(String.raw`aws[_.-]?secret[_.-]?(?:access[_.-]?)?key|secret[_.-]?access[_.-]?key`, '[a-z0-9/+=]{40}'),
    ['aws_secret', 'aws-secret', 'aws.secret', 'awssecret', 'secret_access_key', 'secret-access-key', 'secret.access.key', 'secretaccesskey'],
    // AWS documents wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY next to AKIAIOSFODNN7EXAMPLE; gitleaks allows the latter.
    { entropy: 4, allow: [{ regexes: ['(?i)example'] }] }),
  local('azure-storage-account-key', 'AZURE_STORAGE_KEY', String.raw`(?i)\bAccountKey\s*=\s*([a-z0-9+/]{86}==)`, ['accountkey'], { entropy: 4 }),
  local('azure-sas-token', 'AZURE_SAS_TOKEN',
    String.raw`(?i)[?&]sv=\d{4}-\d{2}-\d{2}&[^` + NOT_URL + String.raw`]*?\bsig=([a-z0-9%+/]{40,}(?:%3d|=){0,2})` + END, ['sig='], { entropy: 4 }),
  local('connection-string-password', 'CONNECTION_STRING',
    String.raw`(?i)\b(?:` + DB_SCHEMES + String.raw`)://[^:/?#@` + NOT_URL + String.raw`]*:([^/?#@` + NOT_URL + String.raw`]+)@[^` + NOT_URL + ']',
    ['postgres', 'mysql', 'mariadb', 'mongodb', 'redis', 'amqp', 'mssql', 'sqlserver', 'oracle', 'cockroachdb', 'clickhouse', 'couchdb', 'neo4j', 'nats', 'kafka'],
    { allow: PLACEHOLDERS, generic: true }),
  local('jdbc-password-parameter', 'CONNECTION_STRING',
    String.raw`(?i)\bjdbc:[a-z0-9]+:[^` + NOT_URL + String.raw`]*?[?&;]password=([^&;` + NOT_URL + ']+)', ['jdbc:'], { allow: PLACEHOLDERS, generic: true }),
  local('ado-connection-string-password', 'CONNECTION_STRING',
    String.raw`(?i)\b(?:server|data source|host)\s*=[^;'"\n]+;[^'"\n]*?\b(?:password|pwd)\s*=\s*([^;'"\n]+)`, ['password', 'pwd'],
    { allow: PLACEHOLDERS, span: [900, 900], generic: true }),
  local('url-credentials', 'CREDENTIALS_IN_URL',
    String.raw`(?i)\b(?:https?|ftps?|sftp|smtps?|imaps?|ldaps?|ssh|git\+https?)://[^:/?#@` + NOT_URL + String.raw`]+:([^/?#@` + NOT_URL + String.raw`]+)@[^` + NOT_URL + ']',
    ['://'], { allow: PLACEHOLDERS, score: 0.85, generic: true }),
];

export const SECRET_RULES: readonly SecretRule[] = [...GITLEAKS_RULES, ...LOCAL_RULES];
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
    while (source[i] === '|') { i++; sequence(); }
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
    if (e === 'x') { const hex = /^(?:\{([0-9a-fA-F]+)\}|([0-9a-fA-F]{2}))/.exec(source.slice(i)); i += hex?.[0].length ?? 0; return String.fromCodePoint(parseInt(hex?.[1] ?? hex?.[2] ?? '61', 16)); }
    if (e === 'p' || e === 'P') { i += source[i] === '{' ? source.indexOf('}', i) - i + 1 : 1; return 'a'; }
    return e;
  };
  return alternatives();
}
