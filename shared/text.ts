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
