// Does a string look generated or chosen rather than written? Shannon entropy and the alternation of
// character classes, for the rules whose value alone decides (secret-rules.ts, `random` and `entropy`).

export function shannonEntropy(s: string): number {
  const counts = new Map<string, number>();
  for (const ch of s) counts.set(ch, (counts.get(ch) ?? 0) + 1);
  let bits = 0;
  for (const n of counts.values()) {
    const p = n / s.length;
    bits -= p * Math.log2(p);
  }
  return bits;
}

const CLASS_OF = (c: number): number => (c >= 97 && c <= 122 ? 0 : c >= 65 && c <= 90 ? 1 : c >= 48 && c <= 57 ? 2 : 3);

/**
 * Does a value look generated or chosen rather than a word, an identifier or a template? At least 8
 * characters, and either three classes of lower, upper, digit and other with 3 bits of entropy per
 * character, or two classes over 12 characters with 3.3 bits; in both the classes must alternate
 * (a class change at 20% or 30% of positions, not counting the - . _ that join words): `Summer2024!`
 * and hex pass; `DatabaseHost`, `upstream-token-1`, `your_password_here` and `ChangeMe` do not.
 */
export function looksLikeSecret(s: string): boolean {
  if (s.length < 8) return false;
  const seen = [0, 0, 0, 0];
  let changes = 0;
  let counted = 0;
  for (let i = 0, prev = -1; i < s.length; i++) {
    const code = s.charCodeAt(i);
    const cls = CLASS_OF(code);
    seen[cls]!++;
    if (code === 45 || code === 46 || code === 95) continue; // - . _ join words: alternation is counted without them
    if (prev !== -1 && cls !== prev) changes++;
    prev = cls;
    counted++;
  }
  const classes = seen.filter((n) => n > 0).length;
  const mixing = changes / Math.max(1, counted - 1);
  if (classes >= 3) return mixing >= 0.2 && shannonEntropy(s) >= 3;
  return classes === 2 && s.length >= 12 && mixing >= 0.3 && shannonEntropy(s) >= 3.3;
}
