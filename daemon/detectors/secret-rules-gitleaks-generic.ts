// gitleaks' generic-api-key: a secret-like value assigned to a secret-like name, whatever the vendor,
// with the allow-lists that keep it from reporting identifiers and prose. Its place in the rule
// order is between gcp-api-key and github-app-token (secret-rules-gitleaks.ts).
import type { SecretRule } from './secret-rule-types.js';
import { s } from './secret-rules-gitleaks-builders.js';
import { GENERIC_STOPWORDS } from './secret-rules-stopwords.js';

/** generic-api-key, with its three allow-lists (the yocto-recipe one is path-scoped and left out). */
export function genericRules(): SecretRule[] {
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
