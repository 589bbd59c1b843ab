// What a trace keeps at rest of the traffic it records, one rule for every path that records
// traffic (verify, the MCP proxy's tools/call, extension events):
//   - every display form (the text and values a reader is shown: display, arguments, payloads,
//     metadata) is masked: personal data (the pii detector with every entity, processors' test
//     cards included) and secrets (the secrets detector, the gateway's own tokens included) become
//     typed placeholders ([CREDIT_CARD_1], [GATEWAY_TOKEN_1]), numbered per trace;
//   - the raw original is kept only at audit level `full`, and then only sealed with the
//     project's data key (crypto/raw-keys.ts), readable by reveal alone.
// Masking fails closed: a value the detectors cannot finish (too large, a detector error) is not
// kept at all, only a marker saying so.
import type { SecretBox } from '../crypto/secret-box.js';
import { sealRaw, type SealedRaw } from '../crypto/raw-keys.js';
import type { Sql } from '../db/connect.js';
import { readOrRecall } from '../state-cache/last-known.js';
import { parsePiiConfig, piiDetector } from '../detectors/pii/index.js';
import { secretsDetector } from '../detectors/secrets.js';
import type { Finding } from '../detectors/types.js';
import { Redactor } from '../detectors/redact.js';
import { RAW_PURPOSE } from './reveal.js';

/**
 * Texts longer than this are not scanned (time: ~0.3 s a million characters), so not kept: a
 * marker stands in for them. Verify's extracted text is bounded by the same number.
 */
export const MASK_MAX_CHARS = 1_000_000;
/** Nesting deeper than this is not kept either (the body reader already bounds depth). */
const MAX_DEPTH = 64;

const PII = parsePiiConfig({ redactTestCards: true });
const SECRETS = secretsDetector.parseConfig({});

const notKept = (why: string): string => `[NOT_KEPT: ${why}]`;

/** Masks the texts of one trace with one numbering, so a value gets the same placeholder wherever it appears. */
export class DisplayMask {
  readonly #redactor = new Redactor();

  text(text: string): string {
    if (text.length === 0) return text;
    if (text.length > MASK_MAX_CHARS) return notKept(`${text.length} characters, more than can be masked`);
    let findings: Finding[];
    try {
      findings = [...piiDetector.detect(text, PII), ...secretsDetector.detect(text, SECRETS)];
    } catch {
      return notKept('the masking detectors failed on this text');
    }
    return findings.length === 0 ? text : this.#redactor.redact(text, findings).text;
  }

  /** A JSON value with every string (object keys too) masked; a number whose digits are found becomes the masked string. */
  value(value: unknown, depth = 0): unknown {
    if (depth > MAX_DEPTH) return notKept('nested too deep to mask');
    if (typeof value === 'string') return this.text(value);
    if (typeof value === 'number' || typeof value === 'bigint') {
      const digits = String(value);
      const masked = this.text(digits);
      return masked === digits ? value : masked;
    }
    if (Array.isArray(value)) return value.map((v) => this.value(v, depth + 1));
    if (typeof value === 'object' && value !== null) {
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [this.text(k), this.value(v, depth + 1)]));
    }
    return value;
  }

  /** value() for a string-or-null field. */
  nullable(text: string | null): string | null {
    return text === null ? null : this.text(text);
  }
}

/** The project's audit level, read as verify reads it (the last value read while the database is unreachable). */
async function auditLevel(sql: Sql, projectId: string): Promise<string> {
  const rows = await readOrRecall(
    sql,
    `at-rest\u0000${projectId}\u0000audit`,
    () => sql<{ audit_detail_level: string }[]>`
    select audit_detail_level from projects where id = ${projectId}`,
  );
  return rows[0]?.audit_detail_level ?? 'standard';
}

/** The raw original to keep with a trace: sealed at audit level `full`, nothing otherwise. */
export async function sealedOriginal(
  sql: Sql,
  box: SecretBox,
  projectId: string,
  original: unknown,
  level?: string,
): Promise<SealedRaw | undefined> {
  if ((level ?? (await auditLevel(sql, projectId))) !== 'full') return undefined;
  return sealRaw(sql, box, projectId, JSON.stringify(original), RAW_PURPOSE);
}
