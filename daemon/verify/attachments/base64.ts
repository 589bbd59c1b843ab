// Strict base64 for attachment payloads. Buffer.from(s, 'base64') silently skips characters
// outside the alphabet, so a mangled payload would decode to different bytes than were sent;
// validating first turns that into a refusal instead. Runs on the daemon's thread: one
// negated-class search per alphabet, no backtracking, about as costly as parsing the JSON body.

const OUTSIDE_STANDARD = /[^A-Za-z0-9+/]/;
const OUTSIDE_URL_SAFE = /[^A-Za-z0-9_-]/;
const ASCII_WHITESPACE = /[\t\n\f\r ]+/g;

/** The payload with ASCII whitespace removed, or null when it is not base64 (either alphabet, never mixed). */
export function normaliseBase64(data: string): string | null {
  const s = data.replace(ASCII_WHITESPACE, '');
  let body = s.length;
  while (body > 0 && body > s.length - 2 && s.charCodeAt(body - 1) === 0x3d) body--; // up to two '='
  const padded = body < s.length;
  if (padded ? s.length % 4 !== 0 : s.length % 4 === 1) return null;
  const digits = padded ? s.slice(0, body) : s;
  if (OUTSIDE_STANDARD.test(digits) && OUTSIDE_URL_SAFE.test(digits)) return null;
  return s;
}

/** Bytes a normalised payload decodes to, computed without decoding it. */
export function decodedLength(normalised: string): number {
  let pad = 0;
  if (normalised.endsWith('==')) pad = 2;
  else if (normalised.endsWith('=')) pad = 1;
  return Math.floor(((normalised.length - pad) * 3) / 4);
}

export function decodeBase64(normalised: string): Buffer {
  // Node's base64 decoder accepts both alphabets; the check above already refused mixtures.
  return Buffer.from(normalised, 'base64');
}
