// How the ONNX injection model (daemon/models/onnx-classifier.ts) reads a text longer than it can take at once:
// overlapping token windows, each scored on its own, the text's score the highest window's. A
// trigger is thus always judged inside at most one window of text, however much innocent text is
// written around it (no dilution), and an instruction cut by a window's end is whole in the next.

/** Longest window whatever the model declares: 512 tokens, the length Prompt Guard-class models take. */
export const MAX_WINDOW_TOKENS = 512;
/**
 * Windows scored per text. Past that the first MAX_WINDOWS - 1 windows and the last one are scored
 * and the text between them is not seen by the model (about 28,000 tokens in at 512-token windows);
 * the phrase rules and the linear classifier still read all of it.
 */
export const MAX_WINDOWS = 64;

/**
 * Characters of a text tokenized in full. Past it only its first MAX_TEXT_CHARS - TAIL_CHARS and its
 * last TAIL_CHARS characters are, since the windows scored read no more than that: a long text's
 * tokenizing stays bounded (about 100 ms for 256 KB on the tiny test model's WordPiece tokenizer).
 */
export const MAX_TEXT_CHARS = 262_144;
const TAIL_CHARS = 16_384;

export interface WindowLayout {
  /** Special tokens before and after each window's text ([CLS] and [SEP] for a BERT tokenizer). */
  readonly prefix: readonly number[];
  readonly suffix: readonly number[];
  readonly padId: number;
  /** Tokens per window, special tokens included. */
  readonly maxTokens: number;
}

/** The windows of a text's token ids (special tokens added); one window, of specials only, for an empty text. */
export function windowsOf(ids: readonly number[], layout: WindowLayout): number[][] {
  const room = layout.maxTokens - layout.prefix.length - layout.suffix.length;
  // An eighth of each window is also in the next one (at most 64 tokens): enough for one instruction.
  const overlap = Math.min(64, Math.floor(room / 8));
  const stride = room - overlap;
  const starts: number[] = [0];
  for (let s = stride; s + overlap < ids.length; s += stride) starts.push(s);
  const chosen = starts.length <= MAX_WINDOWS ? starts : [...starts.slice(0, MAX_WINDOWS - 1), starts[starts.length - 1]!];
  return chosen.map((s) => [...layout.prefix, ...ids.slice(s, s + room), ...layout.suffix]);
}

/** The windows of a text, `encode` giving its token ids without special tokens. */
export function textWindows(text: string, encode: (text: string) => readonly number[], layout: WindowLayout): number[][] {
  if (text.length <= MAX_TEXT_CHARS) return windowsOf(encode(text), layout);
  const head = windowsOf(encode(text.slice(0, MAX_TEXT_CHARS - TAIL_CHARS)), layout).slice(0, MAX_WINDOWS - 1);
  const room = layout.maxTokens - layout.prefix.length - layout.suffix.length;
  return [...head, [...layout.prefix, ...encode(text.slice(-TAIL_CHARS)).slice(-room), ...layout.suffix]];
}
