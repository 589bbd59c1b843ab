// A tool's admitted definition against its current one, field by field (title, description,
// input_schema, output_schema, annotations), each as text lines (strings as they are, JSON pretty-printed) with a
// line-level diff: the longest common subsequence of the lines that differ once a common head and
// tail are set aside. Pure (no DOM), so it is unit-tested in node; the page only draws its result.
// Past MAX_CELLS the middle is not searched for common lines but marked changed as a whole: a
// hostile megabyte description must not cost the browser a quadratic table.

export const FIELDS = ['title', 'description', 'input_schema', 'output_schema', 'annotations'] as const;
export type Field = (typeof FIELDS)[number];
export type Definition = Partial<Record<Field, unknown>>;

/** One line of one side: kept on both sides, or only on this one (removed on the left, added on the right). */
export interface Line {
  readonly text: string;
  readonly changed: boolean;
}

export interface FieldDiff {
  readonly field: Field;
  readonly changed: boolean;
  /**
   * The admitted definition has no such key: it was admitted before the gateway recorded the field
   * (output_schema before migration 00027). Not compared, so never `changed`; `before` is empty.
   */
  readonly unrecorded: boolean;
  /** The admitted definition's lines, the removed ones marked. */
  readonly before: readonly Line[];
  /** The current definition's lines, the added ones marked. */
  readonly after: readonly Line[];
}

export const MAX_CELLS = 1_000_000;

/** A field's value as lines: absent or null shows as no lines, a string as itself, anything else as JSON. */
export function linesOf(value: unknown): string[] {
  if (value === null || value === undefined) return [];
  const text = typeof value === 'string' ? value : (JSON.stringify(value, null, 2) ?? String(value));
  return text.split('\n');
}

/** Which lines of `a` and of `b` belong to their longest common subsequence. */
function common(a: readonly string[], b: readonly string[]): { inA: boolean[]; inB: boolean[] } {
  const inA = a.map(() => false);
  const inB = b.map(() => false);
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) inA[head] = inB[head++] = true;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) {
    inA[a.length - 1 - tail] = inB[b.length - 1 - tail] = true;
    tail += 1;
  }
  const n = a.length - head - tail;
  const m = b.length - head - tail;
  if (n === 0 || m === 0 || n * m > MAX_CELLS) return { inA, inB };
  // lengths[i][j]: the LCS length of a's middle from i and b's middle from j.
  const lengths = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1));
  for (let i = n - 1; i >= 0; i -= 1)
    for (let j = m - 1; j >= 0; j -= 1)
      lengths[i]![j] = a[head + i] === b[head + j] ? lengths[i + 1]![j + 1]! + 1 : Math.max(lengths[i + 1]![j]!, lengths[i]![j + 1]!);
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (a[head + i] === b[head + j]) {
      inA[head + i] = inB[head + j] = true;
      i += 1;
      j += 1;
    } else if (lengths[i + 1]![j]! >= lengths[i]![j + 1]!) i += 1;
    else j += 1;
  }
  return { inA, inB };
}

/** The line diff of two texts. */
export function diffLines(before: readonly string[], after: readonly string[]): { before: Line[]; after: Line[] } {
  const { inA, inB } = common(before, after);
  return {
    before: before.map((text, i) => ({ text, changed: !inA[i] })),
    after: after.map((text, i) => ({ text, changed: !inB[i] })),
  };
}

/**
 * Each field of the two definitions, compared; a field is changed when its text differs. A key the
 * admitted definition lacks was not recorded then (absent is not null: null is "none").
 */
export function definitionDiff(admitted: Definition, current: Definition): FieldDiff[] {
  return FIELDS.map((field) => {
    const b = linesOf(current[field]);
    if (!(field in admitted))
      return { field, changed: false, unrecorded: true, before: [], after: b.map((text) => ({ text, changed: false })) };
    const a = linesOf(admitted[field]);
    const changed = a.length !== b.length || a.some((line, i) => line !== b[i]);
    return { field, changed, unrecorded: false, ...diffLines(a, b) };
  });
}
