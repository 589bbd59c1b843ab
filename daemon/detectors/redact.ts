// Masks findings with typed placeholders ([EMAIL_1], [CREDIT_CARD_2]). One Redactor serves every
// text of one request (prompt, attachments, structured fields), so a value gets the same placeholder
// wherever it appears, numbered per entity type in order of first appearance. Overlapping findings
// are merged into one masked span, so no fragment of either value survives.
import { PII_ENTITIES } from './pii/shared.js';
import type { Finding } from './types.js';

export type RedactSpan = Pick<Finding, 'entity' | 'start' | 'end'> & { readonly score?: number };

export interface Replacement {
  readonly entity: string;
  readonly placeholder: string;
  /** Offsets of the masked span in the input text (UTF-16 code units). */
  readonly start: number;
  readonly end: number;
}

export interface RedactResult {
  readonly text: string;
  readonly replacements: readonly Replacement[];
}

// Entities whose printed form varies in separators and case but not in value: every PII entity but
// the two written as text (the list itself is the PII detector's, so a new identifier joins it).
const NUMBER_LIKE: ReadonlySet<string> = new Set(PII_ENTITIES.filter((e) => e !== 'EMAIL' && e !== 'IP_ADDRESS'));

function normalise(entity: string, value: string): string {
  const v = value.normalize('NFKC');
  if (entity === 'EMAIL' || entity === 'IP_ADDRESS') return v.toLowerCase();
  if (NUMBER_LIKE.has(entity)) return v.replace(/[\s.\-/()]/g, '').toUpperCase();
  return v;
}

function typeName(entity: string): string {
  const name = entity.toUpperCase().replace(/[^A-Z0-9_]/g, '_');
  return name.length > 0 ? name : 'REDACTED';
}

interface Merged {
  entity: string;
  start: number;
  end: number;
  weight: number;
  score: number;
}

/** Sorted, non-overlapping spans; of overlapping findings the longest (then highest score) names the union. */
function merge(text: string, findings: readonly RedactSpan[]): Merged[] {
  const spans = findings
    .map((f) => {
      if (!Number.isInteger(f.start) || !Number.isInteger(f.end) || f.start < 0 || f.end > text.length || f.start >= f.end) {
        throw new RangeError(`finding ${f.entity} [${f.start}, ${f.end}) is outside the text (length ${text.length})`);
      }
      return {
        entity: f.entity,
        start: widenStart(text, f.start),
        end: widenEnd(text, f.end),
        weight: f.end - f.start,
        score: f.score ?? 0,
      };
    })
    .sort((a, b) => a.start - b.start);
  const out: Merged[] = [];
  for (const s of spans) {
    const last = out[out.length - 1];
    if (last === undefined || s.start >= last.end) {
      out.push({ ...s });
      continue;
    }
    if (s.weight > last.weight || (s.weight === last.weight && s.score > last.score)) {
      last.entity = s.entity;
      last.weight = s.weight;
      last.score = s.score;
    }
    last.end = Math.max(last.end, s.end);
  }
  return out;
}

// A span never ends between the two halves of a surrogate pair, so no half character is left.
function widenStart(text: string, i: number): number {
  const c = text.charCodeAt(i);
  return i > 0 && c >= 0xdc00 && c <= 0xdfff ? i - 1 : i;
}
function widenEnd(text: string, i: number): number {
  const c = text.charCodeAt(i - 1);
  return i < text.length && c >= 0xd800 && c <= 0xdbff ? i + 1 : i;
}

export class Redactor {
  readonly #placeholders = new Map<string, string>();
  readonly #counts = new Map<string, number>();

  /** The placeholder for a value, allocating the next number of its type on first sight. */
  placeholderFor(entity: string, value: string): string {
    const type = typeName(entity);
    const key = type + '\u0000' + normalise(type, value);
    let placeholder = this.#placeholders.get(key);
    if (placeholder === undefined) {
      const n = (this.#counts.get(type) ?? 0) + 1;
      this.#counts.set(type, n);
      placeholder = `[${type}_${n}]`;
      this.#placeholders.set(key, placeholder);
    }
    return placeholder;
  }

  redact(text: string, findings: readonly RedactSpan[]): RedactResult {
    const parts: string[] = [];
    const replacements: Replacement[] = [];
    let at = 0;
    for (const m of merge(text, findings)) {
      const placeholder = this.placeholderFor(m.entity, text.slice(m.start, m.end));
      parts.push(text.slice(at, m.start), placeholder);
      replacements.push({ entity: typeName(m.entity), placeholder, start: m.start, end: m.end });
      at = m.end;
    }
    parts.push(text.slice(at));
    return { text: parts.join(''), replacements };
  }
}

/** Redacts one text on its own; use one Redactor for all texts of a request to share the numbering. */
export function redact(text: string, findings: readonly RedactSpan[]): RedactResult {
  return new Redactor().redact(text, findings);
}
