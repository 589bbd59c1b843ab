// Short strings a detector found nothing in, remembered per parsed configuration and origin: the
// member names of a schema ("content", "text", "isError") and the tokens of a protocol ("text",
// "application/json") come back on every call, and each costs a detector run of a few microseconds
// that would otherwise be most of what inspecting a small message costs. Only strings with no
// finding are kept (a detector is a function of the text, its configuration and the origin, so the
// answer cannot change), only names and tokens of at most MAX_LENGTH characters (no sentence, no
// one's words), and at most LIMIT per configuration and origin: past it, the set starts again.
import type { TextOrigin } from '../../detectors/types.js';

const MAX_LENGTH = 64;
const LIMIT = 4096;
const TOKEN = /^[\w./+:-]+$/;

const remembered = new WeakMap<object, Map<TextOrigin, Set<string>>>();

function setOf(config: object, origin: TextOrigin): Set<string> {
  let byOrigin = remembered.get(config);
  if (byOrigin === undefined) remembered.set(config, (byOrigin = new Map()));
  let set = byOrigin.get(origin);
  if (set === undefined) byOrigin.set(origin, (set = new Set()));
  return set;
}

/** Whether `text` may be remembered at all: a name or a token, short. */
export const rememberable = (text: string): boolean => text.length <= MAX_LENGTH && TOKEN.test(text);

/** Whether the detector configured by `config` found nothing in `text` before. */
export function knownClean(config: unknown, origin: TextOrigin, text: string): boolean {
  return typeof config === 'object' && config !== null && remembered.get(config)?.get(origin)?.has(text) === true;
}

/** Remembers that the detector configured by `config` found nothing in `text` (a rememberable string). */
export function rememberClean(config: unknown, origin: TextOrigin, text: string): void {
  if (typeof config !== 'object' || config === null || !rememberable(text)) return;
  const set = setOf(config, origin);
  if (set.size >= LIMIT) set.clear();
  set.add(text);
}
