// The secret rule set, as data: gitleaks' default rules (secret-rules-gitleaks.ts, MIT, notice in
// secret-rules.NOTICE) plus ours for what gitleaks leaves out: the AWS secret access key, Azure
// storage keys and SAS signatures, passwords inside connection strings and URLs, this gateway's own tokens,
// values that look generated or chosen assigned to secret-like names, private keys without an END line,
// and token formats gitleaks misses or binds to a nearby name (Discord, Telegram, Mailchimp,
// Artifactory, Braintree, FCM, Okta, Dropbox, Twilio SIDs, short Slack tokens, unsigned JWTs). Ours are
// written from the vendors' published formats, not taken from another scanner. Ours use
// unbounded repeats over classes that exclude whitespace: RE2 matches them in linear time, the
// keyword window bounds them, and re2-wasm compiles wide counted repeats slowly.
// Ours are two tables (secret-rules-contextual.ts, secret-rules-token-formats.ts) and the vendors'
// formats (secret-rules-vendors.ts); this module joins every table in the order the detector runs them.
import type { SecretAllowList, SecretRule } from './secret-rule-types.js';
import { VENDOR_RULES } from './secret-rules-vendors.js';
import { GITLEAKS_DROPPED, GITLEAKS_GLOBAL_ALLOW, GITLEAKS_GLOBAL_STOPWORDS, GITLEAKS_RULES } from './secret-rules-gitleaks.js';
import { CONTEXTUAL_RULES } from './secret-rules-contextual.js';
import { TOKEN_FORMAT_RULES } from './secret-rules-token-formats.js';

export const LOCAL_RULES: readonly SecretRule[] = [...CONTEXTUAL_RULES, ...TOKEN_FORMAT_RULES];

export const SECRET_RULES: readonly SecretRule[] = [...GITLEAKS_RULES, ...LOCAL_RULES, ...VENDOR_RULES];
export const GLOBAL_ALLOW: SecretAllowList = { regexes: GITLEAKS_GLOBAL_ALLOW, stopwords: GITLEAKS_GLOBAL_STOPWORDS };
export const DROPPED_RULES = GITLEAKS_DROPPED;
