// Data of the tool-poisoning heuristics (poisoning.ts) other than the phrases (poisoning-phrases.ts):
// sensitive paths, request-capture hosts, data-looking placeholder words, invisible characters and
// look-alike letters.
import { LOOKALIKE_LETTERS } from '../../detectors/lookalike-letters.js';

/**
 * Files and locations holding secrets. A description that names one next to an access verb
 * (ACCESS_VERB within SENSITIVE_WINDOW characters) is a finding; in a schema value (default,
 * const, enum, examples) naming one is enough.
 */
export const SENSITIVE_PATH = String.raw`(?:~|\$home|%userprofile%|/home/[\w.-]+|/root|/users/[\w.-]+)?/\.ssh\b|(?:^|[\s'"\x60(])\.ssh/|\bid_(?:rsa|dsa|ecdsa|ed25519)\b|\.aws/(?:credentials|config)\b|\.config/gcloud\b|\.azure/|\.kube/config\b|\.docker/config\.json\b|/etc/(?:passwd|shadow|sudoers)\b|(?:^|[\s'"\x60(/~])\.(?:netrc|npmrc|pypirc|git-credentials|pgpass)\b|\.gnupg\b|\bmcp\.json\b|\bclaude_desktop_config\.json\b|\.cursor/|\bkeychain\b|\bwallet\.dat\b|\.(?:bash|zsh)_history\b`;
export const ACCESS_VERB = String.raw`\b(?:read|reads|reading|cat|open|load|include|send|upload|attach|pass|provide|copy|print|output|fetch|get|retrieve|extract|dump|exfiltrate|contents?\s+of|lies|lesen|lire|leer|lee|leggi)\b`;
export const SENSITIVE_WINDOW = 80;

/**
 * Hosts whose business is catching requests, tunnelling to a laptop or holding pastes: a tool
 * description has no honest reason to point a model at them. Matched as the host or a parent domain.
 */
export const CAPTURE_HOSTS: readonly string[] = [
  'webhook.site',
  'requestbin.com',
  'requestbin.net',
  'requestcatcher.com',
  'pipedream.net',
  'hookbin.com',
  'beeceptor.com',
  'mockbin.org',
  'postb.in',
  'ngrok.io',
  'ngrok.app',
  'ngrok-free.app',
  'ngrok-free.dev',
  'trycloudflare.com',
  'loca.lt',
  'localtunnel.me',
  'serveo.net',
  'burpcollaborator.net',
  'oastify.com',
  'interact.sh',
  'oast.pro',
  'oast.live',
  'oast.site',
  'oast.online',
  'oast.fun',
  'oast.me',
  'canarytokens.com',
  'dnslog.cn',
  'pastebin.com',
  'paste.ee',
  'hastebin.com',
  'transfer.sh',
  'file.io',
  '0x0.st',
  'ix.io',
  'termbin.com',
];
/** Host + path prefixes that are inbound webhooks of chat services: a post there lands in someone's channel. */
export const CAPTURE_PATHS: readonly string[] = [
  'discord.com/api/webhooks',
  'discordapp.com/api/webhooks',
  'hooks.slack.com/',
  'api.telegram.org/bot',
];

/** Words that make a URL placeholder or query key look like data being carried out. */
export const DATA_WORDS = new Set([
  'data',
  'content',
  'contents',
  'secret',
  'secrets',
  'token',
  'tokens',
  'key',
  'keys',
  'apikey',
  'password',
  'passwd',
  'pwd',
  'credential',
  'credentials',
  'creds',
  'cookie',
  'cookies',
  'session',
  'env',
  'ssh',
  'history',
  'conversation',
  'chat',
  'prompt',
  'context',
  'memory',
  'file',
  'dump',
  'exfil',
  'leak',
  'sidenote',
  'notes',
  'clipboard',
  'output',
]);
/** Words that make a placeholder an identifier rather than data ({file_id}, {key_name}). */
export const IDENTIFIER_WORDS = new Set([
  'id',
  'ids',
  'name',
  'names',
  'path',
  'number',
  'slug',
  'type',
  'uuid',
  'index',
  'version',
  'format',
]);
/** Property-name words of a destination: a URL as their default means data goes there unless the model says otherwise. */
export const DESTINATION_WORDS = new Set([
  'webhook',
  'callback',
  'endpoint',
  'destination',
  'target',
  'upload',
  'report',
  'notify',
  'sink',
  'forward',
  'collect',
  'collector',
  'exfil',
  'post',
  'beacon',
  'log',
  'logging',
  'telemetry',
]);
/** RFC 2606 / RFC 6761 names: examples, never real destinations. */
export const RESERVED_DOMAINS: readonly string[] = ['example.com', 'example.org', 'example.net', 'example', 'test', 'invalid', 'localhost'];

/** Invisible characters, by finding. */
export const TAG_CHARACTERS = /[\u{E0000}-\u{E007F}]/gu;
export const ZERO_WIDTH: ReadonlySet<number> = new Set([
  0x200b, 0x200c, 0x200d, 0x2060, 0x2061, 0x2062, 0x2063, 0x2064, 0xfeff, 0x180e, 0x00ad, 0x034f, 0x115f, 0x1160, 0x3164, 0xffa0,
]);
/** Embeddings, overrides and isolates: always suspicious (Trojan Source). */
export const BIDI_CONTROLS = /[\u202A-\u202E\u2066-\u2069]/gu;
/** Marks: suspicious only in text without right-to-left letters. */
export const BIDI_MARKS = /[\u200E\u200F\u061C]/gu;
export const RTL_LETTER = /(?=\p{L})[\p{Script=Hebrew}\p{Script=Arabic}\p{Script=Syriac}\p{Script=Thaana}\p{Script=Nko}]/u;
/** Variation selectors: a run of them can carry bytes ("emoji smuggling"); one after an emoji is normal. */
export const VARIATION_SELECTOR_RUN = /[\uFE00-\uFE0F\u{E0100}-\u{E01EF}]{2,}|[\u{E0100}-\u{E01EF}]/gu;

/**
 * Look-alike letters folded to Latin for name comparison (lookalike-letters.ts), plus Cyrillic letters
 * that read as Latin ones in names (в b, м m, н h, т t); applied after NFKC and lower-casing.
 */
export const CONFUSABLES: Readonly<Record<string, string>> = {
  ...LOOKALIKE_LETTERS,
  в: 'b',
  м: 'm',
  н: 'h',
  т: 't',
};
