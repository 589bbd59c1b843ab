// The 'pii' detector: personal data that the default policy redacts. Each entity has a recognizer
// (pii/*.ts) that proposes candidates with cheap linear patterns and keeps only those that pass the
// format's own validation (checksum where the format has one); context words then move the score,
// and overlapping candidates are resolved longest first, then most specific.
// What passes on purpose: e-mail at RFC 2606 names, documentation IP ranges, private IPs (unless
// privateIps), processors' published test cards (unless redactTestCards). Formats without a strong
// check (bare digit strings, NHS and ID-card numbers, NINOs without suffix) score below minScore
// unless a context word says what the number is.
import { isSupportedCountry } from 'libphonenumber-js/max';
import { z } from 'zod';
import type { Detector, Finding } from './types.js';
import { findEmails } from './pii/email.js';
import { findIps } from './pii/ip.js';
import { findDeIdCards, findDeTaxIds, findFrTaxIds, findNirs } from './pii/national-de-fr.js';
import { findNhs, findNinos, findSsns } from './pii/national-us-uk.js';
import { findCards, findIbans } from './pii/payment.js';
import { findPhones } from './pii/phone.js';
import { digitRuns, PII_ENTITIES, type Candidate, type DigitRun, type PiiEntity, type ScanOptions } from './pii/shared.js';

export { PII_ENTITIES, type PiiEntity } from './pii/shared.js';

const configSchema = z.object({
  /** Entity types to report; all by default. */
  entities: z.array(z.enum(PII_ENTITIES)).min(1).default([...PII_ENTITIES]),
  /** Countries whose nationally written numbers count as phones (ISO 3166 alpha-2). */
  phoneCountries: z.array(z.string().refine(isSupportedCountry, 'not a country libphonenumber-js knows'))
    .default(['US', 'GB', 'DE', 'FR']),
  /** +-prefixed (or 00-prefixed) numbers of any country. */
  internationalPhones: z.boolean().default(true),
  /** Also report private, loopback, link-local and CGNAT addresses. */
  privateIps: z.boolean().default(false),
  /** Also report the processors' published test card numbers. */
  redactTestCards: z.boolean().default(false),
  /** Candidates scoring below this are dropped (context-dependent entities start below 0.5). */
  minScore: z.number().min(0).max(1).default(0.5),
}).strict();

export interface PiiConfig extends ScanOptions {
  readonly entities: ReadonlySet<PiiEntity>;
}

type Scan = (text: string, options: ScanOptions, runs: () => readonly DigitRun[]) => Candidate[];

const RECOGNIZERS: Readonly<Record<PiiEntity, Scan>> = {
  EMAIL: (text) => findEmails(text),
  PHONE: (text, o) => findPhones(text, o),
  CREDIT_CARD: (text, o, runs) => findCards(text, runs(), o),
  IBAN: (text) => findIbans(text),
  IP_ADDRESS: (text, o) => findIps(text, o),
  US_SSN: (text, _o, runs) => findSsns(text, runs()),
  UK_NINO: (text) => findNinos(text),
  UK_NHS: (text, _o, runs) => findNhs(text, runs()),
  DE_TAX_ID: (text, _o, runs) => findDeTaxIds(text, runs()),
  DE_ID_CARD: (text) => findDeIdCards(text),
  FR_NIR: (text) => findNirs(text),
  FR_TAX_ID: (text, _o, runs) => findFrTaxIds(text, runs()),
};

/** On equal length, the entity with the stronger validation wins (index 0 strongest). */
const SPECIFICITY: readonly PiiEntity[] = [
  'FR_NIR', 'IBAN', 'CREDIT_CARD', 'DE_TAX_ID', 'FR_TAX_ID', 'UK_NHS', 'DE_ID_CARD',
  'US_SSN', 'UK_NINO', 'EMAIL', 'IP_ADDRESS', 'PHONE',
];

export function parsePiiConfig(config: unknown): PiiConfig {
  const c = configSchema.parse(config ?? {});
  return Object.freeze({
    entities: new Set(c.entities),
    phoneCountries: Object.freeze([...new Set(c.phoneCountries)]),
    internationalPhones: c.internationalPhones,
    privateIps: c.privateIps,
    redactTestCards: c.redactTestCards,
    minScore: c.minScore,
  });
}

export function detectPii(text: string, config: PiiConfig): Finding[] {
  let runs: DigitRun[] | undefined;
  const lazyRuns = (): DigitRun[] => (runs ??= digitRuns(text));
  const candidates: Candidate[] = [];
  for (const entity of config.entities) {
    for (const c of RECOGNIZERS[entity](text, config, lazyRuns)) {
      if (c.score >= config.minScore) candidates.push(c);
    }
  }
  return resolveOverlaps(candidates).map((c) => ({ detector: 'pii', ...c }));
}

/**
 * Keeps a set of non-overlapping candidates: longest first, then most specific, then highest score.
 * Candidates are first split into clusters of transitively overlapping ones (a sweep by start), so
 * the pairwise ranking only ever runs inside a cluster, which holds at most a few candidates.
 */
export function resolveOverlaps(candidates: readonly Candidate[]): Candidate[] {
  const byStart = [...candidates].sort((a, b) => a.start - b.start);
  const kept: Candidate[] = [];
  let cluster: Candidate[] = [];
  let clusterEnd = -1;
  for (const c of byStart) {
    if (c.start >= clusterEnd && cluster.length > 0) { kept.push(...bestOf(cluster)); cluster = []; }
    cluster.push(c);
    clusterEnd = cluster.length === 1 ? c.end : Math.max(clusterEnd, c.end);
  }
  kept.push(...bestOf(cluster));
  return kept;
}

function bestOf(cluster: readonly Candidate[]): Candidate[] {
  if (cluster.length < 2) return [...cluster];
  const ranked = [...cluster].sort((a, b) =>
    (b.end - b.start) - (a.end - a.start)
    || SPECIFICITY.indexOf(a.entity) - SPECIFICITY.indexOf(b.entity)
    || b.score - a.score
    || a.start - b.start);
  const kept: Candidate[] = [];
  for (const c of ranked) {
    if (kept.every((k) => c.end <= k.start || c.start >= k.end)) kept.push(c);
  }
  return kept.sort((a, b) => a.start - b.start);
}

export const piiDetector: Detector<PiiConfig> = {
  name: 'pii',
  parseConfig: parsePiiConfig,
  detect: detectPii,
};
