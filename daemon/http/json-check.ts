// What a parsed JSON request body may hold, checked once at body reading for every route: at most
// MAX_JSON_DEPTH levels of nesting (deeper values overflow the stack of every recursive reader
// after us: canonical JSON, hashing, JSON.stringify), only finite numbers (JSON.parse reads 1e999
// as Infinity, which no canonical form or column can hold), and only text the database can store.
import { isWellFormed } from '../../shared/text.js';

/** Arrays and objects nest at most this deep; the body itself is level 1. */
export const MAX_JSON_DEPTH = 100;

export interface JsonCheckOptions {
  /** The route stores NUL characters safely itself (lone surrogates are refused all the same). */
  readonly allowNul?: boolean;
  /** Strings need no look: only a \u escape can put a NUL or a lone surrogate into parsed JSON. */
  readonly skipText?: boolean;
  readonly maxDepth?: number;
}

/** The first problem found, as a sentence for the error message, or null. Walked without recursion. */
export function jsonBodyProblem(
  value: unknown,
  { allowNul = false, skipText = false, maxDepth = MAX_JSON_DEPTH }: JsonCheckOptions = {},
): string | null {
  const badText = (text: string) => !skipText && ((!allowNul && text.includes('\u0000')) || !isWellFormed(text));
  const textProblem = `holds ${allowNul ? '' : 'a NUL character or '}a lone UTF-16 surrogate (a \\u escape), which cannot be stored`;
  const values: unknown[] = [value];
  const depths: number[] = [1];
  while (values.length > 0) {
    const v = values.pop();
    const depth = depths.pop()!;
    if (typeof v === 'number') {
      if (!Number.isFinite(v)) return 'holds a number too large to represent (it overflows to infinity)';
    } else if (typeof v === 'string') {
      if (badText(v)) return textProblem;
    } else if (v !== null && typeof v === 'object') {
      if (depth > maxDepth) return `nests arrays and objects deeper than ${maxDepth} levels`;
      if (Array.isArray(v)) {
        for (const inner of v) {
          values.push(inner);
          depths.push(depth + 1);
        }
      } else {
        for (const [key, inner] of Object.entries(v)) {
          if (badText(key)) return textProblem;
          values.push(inner);
          depths.push(depth + 1);
        }
      }
    }
  }
  return null;
}
