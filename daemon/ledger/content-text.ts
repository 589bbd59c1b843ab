// The canonical form (RFC 8785) of a trace's content, made once per content object: the writer's
// check that the content can be stored at all (dlq-outcome.ts) serialises it, and the content hash
// of the batch (streams.ts) hashes that same text instead of serialising the content again.
// A content object is not changed once it is handed to the writer (every caller builds it anew).
import { canonicalJson } from '../../shared/canonical-json.js';

const made = new WeakMap<object, string>();

/** JCS of `content`, computed at most once per object; throws what canonicalJson throws. */
export function canonicalContent(content: Record<string, unknown>): string {
  let text = made.get(content);
  if (text === undefined) {
    text = canonicalJson(content);
    made.set(content, text);
  }
  return text;
}
