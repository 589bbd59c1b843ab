// What every prompt detector is: a pure function from text (and its policy's configuration) to
// findings. Detectors never decide; the pipeline maps findings to a policy's action. A detector
// that throws or runs past its budget is turned into a BLOCKED verdict by the pipeline (fail closed).

/** One thing found in the text. Offsets are UTF-16 code-unit indexes into the scanned text. */
export interface Finding {
  /** The detector that produced it: 'pii', 'secrets', 'injection', 'keywords', 'regex'. */
  readonly detector: string;
  /** What was found, upper snake case: EMAIL, PHONE, CREDIT_CARD, IBAN, IP_ADDRESS, US_SSN, AWS_ACCESS_KEY, PROMPT_INJECTION, ... */
  readonly entity: string;
  readonly start: number;
  readonly end: number;
  /** Confidence in [0, 1]. Checksum-validated matches are 1. */
  readonly score: number;
  /** The rule inside the detector that matched (a gitleaks rule id, an injection rule name, ...). */
  readonly rule?: string;
}

/**
 * Whose words a text is: the user's own prompt ('prompt'), or data the model will read ('data': an
 * attachment's text, extracted_text). Detectors that do not care ignore it.
 */
export type TextOrigin = 'prompt' | 'data';
export interface DetectContext {
  readonly origin: TextOrigin;
  /**
   * The optional ONNX injection model's probability for this text (daemon/models/onnx-classifier.ts), computed
   * before the stages run; absent when no model is configured. Only the injection detector reads it.
   */
  readonly modelScore?: number;
}

export interface Detector<C = unknown> {
  readonly name: string;
  /** Validates and normalises a policy's configuration for this detector; throws a ZodError on bad input. */
  parseConfig(config: unknown): C;
  /** `context` absent: the text is the user's prompt. */
  detect(text: string, config: C, context?: DetectContext): Finding[];
}
