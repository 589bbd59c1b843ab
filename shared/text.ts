// Text that PostgreSQL can store in text and jsonb columns: no NUL character and no lone UTF-16
// surrogate. A JSON \u escape can carry either (UTF-8 on the wire cannot), so both can reach us in a
// parsed request body; stored as they are, they would fail the statement that writes them.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

export function isWellFormed(text: string): boolean {
  return !LONE_SURROGATE.test(text);
}

/**
 * Whether a JSON-like value holds a string or key with a lone surrogate, or (unless `allowNul`) a
 * NUL character. Walked without recursion, so any nesting JSON.parse accepts is fine.
 */
export function holdsUnstorableText(value: unknown, { allowNul = false } = {}): boolean {
  const bad = (text: string) => (!allowNul && text.includes('\u0000')) || !isWellFormed(text);
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const v = pending.pop();
    if (typeof v === 'string') {
      if (bad(v)) return true;
    } else if (Array.isArray(v)) {
      for (const inner of v) pending.push(inner);
    } else if (v !== null && typeof v === 'object') {
      for (const [k, inner] of Object.entries(v)) {
        if (bad(k)) return true;
        pending.push(inner);
      }
    }
  }
  return false;
}

/** The most characters of any input an error message quotes. */
export const QUOTE_MAX_CHARS = 64;

// Characters that would reorder or hide text where a message is shown: C1 controls, line and
// paragraph separators, bidirectional overrides and isolates, zero-width marks.
const INVISIBLE = /[\u0080-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/g;

/**
 * Input as an error message quotes it: at most QUOTE_MAX_CHARS characters (`…` after the quote
 * when cut), escaped as a JSON string, with every control, invisible or bidirectional character
 * (and any lone surrogate) as a \u escape. The one way a message quotes what a client sent, so an
 * answer never grows with the request and never carries text that hides or reorders itself.
 */
export function quoted(input: unknown): string {
  const text = typeof input === 'string' ? input : String(input);
  const chars = Array.from(text);
  const cut = chars.length > QUOTE_MAX_CHARS;
  const shown = JSON.stringify(cut ? chars.slice(0, QUOTE_MAX_CHARS).join('') : text).replace(
    INVISIBLE,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
  return cut ? `${shown}…` : shown;
}
