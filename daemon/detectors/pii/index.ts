// The 'pii' detector: personal data that the default policy redacts. Each entity has a recognizer
// (a module of its own in this folder) that proposes candidates with cheap linear patterns and
// keeps only those that pass the format's own validation (checksum where the format has one);
// context words then move the score, and overlapping candidates are resolved longest first, then
// most specific.
// What passes on purpose: e-mail at RFC 2606 names, documentation IP ranges, private IPs (unless
// privateIps), processors' published test cards (unless redactTestCards). Formats without a strong
// check (bare digit strings, NHS and ID-card numbers, NINOs without suffix, Dutch BSNs, bare 12- and
// 13-digit cards) score below minScore unless a context word says what the number is; passport
// numbers, which have no check at all, are only looked for right after the word passport.
// Context words are written for English, German, French, Spanish, Italian, Dutch and Polish.
import { isSupportedCountry } from 'libphonenumber-js/max';
import { z } from 'zod';
import type { Detector, Finding } from '../types.js';
import { findEmails } from './email.js';
import { findIps } from './ip.js';
import { findDeIdCards, findDeTaxIds, findFrTaxIds, findNirs } from './national-de-fr.js';
import { findBsns, findEsIds, findItFiscalCodes, findPesels } from './national-es-it-nl-pl.js';
import { findNhs, findNinos, findSsns } from './national-us-uk.js';
import { findPassports } from './passport.js';
import { findCards, findIbans } from './payment.js';
import { findPhones } from './phone.js';
import { digitRuns, PII_ENTITIES, type Candidate, type DigitRun, type PiiEntity, type ScanOptions } from './shared.js';

export { PII_ENTITIES, type PiiEntity } from './shared.js';

const configSchema = z
  .object({
    /** Entity types to report; all by default. */
    entities: z
      .array(z.enum(PII_ENTITIES))
      .min(1)
      .default([...PII_ENTITIES]),
    /** Countries whose nationally written numbers count as phones (ISO 3166 alpha-2). */
    phoneCountries: z
      .array(z.string().refine(isSupportedCountry, 'not a country libphonenumber-js knows'))
      .default(['US', 'GB', 'DE', 'FR', 'ES', 'IT', 'NL', 'PL']),
    /** +-prefixed (or 00-prefixed) numbers of any country. */
    internationalPhones: z.boolean().default(true),
    /** Also report private, loopback, link-local and CGNAT addresses. */
    privateIps: z.boolean().default(false),
    /** Also report the processors' published test card numbers. */
    redactTestCards: z.boolean().default(false),
    /** Candidates scoring below this are dropped (context-dependent entities start below 0.5). */
    minScore: z.number().min(0).max(1).default(0.5),
  })
  .strict();

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
  // DNI and NIE come from one scan; each entity keeps its own.
  ES_DNI: (text) => findEsIds(text).filter((c) => c.entity === 'ES_DNI'),
  ES_NIE: (text) => findEsIds(text).filter((c) => c.entity === 'ES_NIE'),
  IT_FISCAL_CODE: (text) => findItFiscalCodes(text),
  NL_BSN: (text, _o, runs) => findBsns(text, runs()),
  PL_PESEL: (text, _o, runs) => findPesels(text, runs()),
  PASSPORT: (text) => findPassports(text),
};

/** On equal length, the entity with the stronger validation wins (index 0 strongest). */
const SPECIFICITY: readonly PiiEntity[] = [
  'FR_NIR',
  'IT_FISCAL_CODE',
  'IBAN',
  'CREDIT_CARD',
  'DE_TAX_ID',
  'FR_TAX_ID',
  'PL_PESEL',
  'ES_DNI',
  'ES_NIE',
  'UK_NHS',
  'DE_ID_CARD',
  'US_SSN',
  'NL_BSN',
  'UK_NINO',
  'PASSPORT',
  'EMAIL',
  'IP_ADDRESS',
  'PHONE',
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
    if (c.start >= clusterEnd && cluster.length > 0) {
      kept.push(...bestOf(cluster));
      cluster = [];
    }
    cluster.push(c);
    clusterEnd = cluster.length === 1 ? c.end : Math.max(clusterEnd, c.end);
  }
  kept.push(...bestOf(cluster));
  return kept;
}

function bestOf(cluster: readonly Candidate[]): Candidate[] {
  if (cluster.length < 2) return [...cluster];
  const ranked = [...cluster].sort(
    (a, b) =>
      b.end - b.start - (a.end - a.start)
      || SPECIFICITY.indexOf(a.entity) - SPECIFICITY.indexOf(b.entity)
      || b.score - a.score
      || a.start - b.start,
  );
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
