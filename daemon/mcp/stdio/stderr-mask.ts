// What a stdio server writes on stderr reaches the daemon's log only with its secrets masked: the
// same secrets detector as prompts and tool arguments, default configuration. A text the detector
// cannot check (too many findings, the regex engine out of memory) is withheld, not logged raw.
import { redact } from '../../detectors/redact.js';
import { secretsDetector } from '../../detectors/secrets.js';

const CONFIG = secretsDetector.parseConfig({});

export function maskSecrets(text: string): string {
  try {
    return redact(text, secretsDetector.detect(text, CONFIG)).text;
  } catch {
    return `[${text.length} characters withheld: the secrets check could not run]`;
  }
}
