// The detectors a prompt policy can name, by name.
import { injectionDetector } from './injection.js';
import { keywordsDetector, regexDetector } from './keywords.js';
import { piiDetector } from './pii/index.js';
import { secretsDetector } from './secrets.js';
import type { Detector } from './types.js';

export const DETECTORS: Readonly<Record<string, Detector<unknown>>> = {
  pii: piiDetector as Detector<unknown>,
  secrets: secretsDetector as Detector<unknown>,
  injection: injectionDetector as Detector<unknown>,
  keywords: keywordsDetector as Detector<unknown>,
  regex: regexDetector as Detector<unknown>,
};
