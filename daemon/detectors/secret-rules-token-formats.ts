// Our secret rules for token formats gitleaks misses or binds to a nearby name: Discord, Telegram,
// Mailchimp, Artifactory, Braintree, FCM, Okta, Dropbox, Twilio SIDs, short Slack tokens, unsigned JWTs,
// written from the vendors' published formats. Part of the rule set of secret-rules.ts, in this order.
import { local, type SecretRule } from './secret-rule-types.js';
import { END } from './secret-rules-gitleaks-builders.js';

/** Before a token: the start or a character that cannot be inside base64 or base64url (\b would let a blob's `/` or `+` start one); `=` pads only the end of one, so TOKEN=... counts. */
const B64_EDGE = String.raw`(?:^|[^A-Za-z0-9+/_-])`;
const DIGIT_COLON = Array.from({ length: 10 }, (_, d) => `${d}:`);
const SLACK_PREFIXES = ['xoxa-', 'xoxb-', 'xoxp-', 'xoxo-', 'xoxs-', 'xoxr-'];

export const TOKEN_FORMAT_RULES: readonly SecretRule[] = [
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
