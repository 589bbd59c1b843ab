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

export interface Detector<C = unknown> {
  readonly name: string;
  /** Validates and normalises a policy's configuration for this detector; throws a ZodError on bad input. */
  parseConfig(config: unknown): C;
  detect(text: string, config: C): Finding[];
}
