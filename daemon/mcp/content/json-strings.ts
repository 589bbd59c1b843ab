// The strings inside a JSON value, each with its JSON path, as content inspection reads them: the
// walk (keys included, without recursion), the paths it writes (childPath, parentOf), the siblings
// of a container, and a path as findings show it (shownPath: a key that may be someone's secret is
// never shown). inspect.ts runs the detectors over what this finds.

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** The path of the container holding `path`'s value (paths as childPath writes them). */
export function parentOf(path: string): string {
  if (path.endsWith(']')) {
    // [n] or ["key"]: the bracket that opens it is the last one outside a quoted key.
    const quoted = path.endsWith('"]') ? path.lastIndexOf('["') : -1;
    return path.slice(0, quoted >= 0 ? quoted : path.lastIndexOf('['));
  }
  return path.slice(0, path.lastIndexOf('.'));
}

// A key of the shape of a token (long, letters and digits) is written quoted, so that shownPath
// hides it: it may be a secret ({"ghp_...": 1}), and every path under it would carry it.
const TOKEN_SHAPED = (key: string): boolean => key.length >= 16 && /\d/.test(key) && /[A-Za-z]/.test(key);

export function childPath(parent: string, key: string | number): string {
  if (typeof key === 'number') return `${parent}[${key}]`;
  return IDENTIFIER.test(key) && !TOKEN_SHAPED(key) ? `${parent}.${key}` : `${parent}[${JSON.stringify(key)}]`;
}

/**
 * A member of an object left out of inspection (binary content, protocol metadata); 'binary' leaves
 * it out and counts it (the inspection's binaryItems).
 */
export type Skip = (key: string, parent: Readonly<Record<string, unknown>>) => boolean | 'binary';

/** A key that is a plain name is no one's words: only the secrets detector reads it ({"AKIA...": 1}). */
const PLAIN_KEY = /^[A-Za-z_$][\w$-]{0,39}$/;
/** What the path of a key's own text ends with (its member's path comes before). */
export const KEY_SUFFIX = ' (key)';

export interface Walked {
  readonly path: string;
  readonly text: string;
  /** A key that is a plain name: read by the secrets detector only. */
  readonly plainKey?: true;
  /** The container a string value belongs to (its siblings share it); keys have none. */
  readonly parent?: number;
}

/**
 * Every string in `value` with its JSON path, depth first in document order, without recursion (a
 * hostile upstream's nesting cannot exhaust the stack); members `skip` names are left out. A key is
 * a string too (path: its member's, then " (key)"): an instruction can hide in a key of structured
 * content as well as in a value, and a secret in any key.
 */
export function walk(value: unknown, skip?: Skip): { strings: Walked[]; binaryItems: number } {
  const out: Walked[] = [];
  let binaryItems = 0;
  const stack: { path: string; value: unknown; parent?: number; plainKey?: true }[] = [{ path: '$', value }];
  let containers = 0;
  while (stack.length > 0) {
    const { path, value: v, parent, plainKey } = stack.pop()!;
    if (typeof v === 'string') {
      if (v !== '') out.push({ path, text: v, ...(plainKey ? { plainKey } : {}), ...(parent !== undefined ? { parent } : {}) });
    } else if (Array.isArray(v)) {
      const id = containers++;
      for (let i = v.length - 1; i >= 0; i--) stack.push({ path: childPath(path, i), value: v[i], parent: id });
    } else if (typeof v === 'object' && v !== null) {
      const id = containers++;
      const record = v as Record<string, unknown>;
      const entries = Object.entries(record);
      for (let i = entries.length - 1; i >= 0; i--) {
        const [key, child] = entries[i]!;
        const skipped = skip?.(key, record) ?? false;
        if (skipped === 'binary') binaryItems++;
        if (skipped !== false) continue;
        stack.push({ path: childPath(path, key), value: child, parent: id });
        // The key's own path is always quoted, so that a finding's path never shows the key.
        const keyPath = `${path}[${JSON.stringify(key)}]${KEY_SUFFIX}`;
        stack.push(
          PLAIN_KEY.test(key) ? { path: keyPath, value: key, plainKey: true } : { path: childPath(path, key) + KEY_SUFFIX, value: key },
        );
      }
    }
  }
  return { strings: out, binaryItems };
}

/** Every string value and every key that is not a plain name, with its JSON path (see walk). */
export function stringsIn(value: unknown, skip?: Skip): { path: string; text: string }[] {
  return walk(value, skip).strings.flatMap((w) => (w.plainKey ? [] : [{ path: w.path, text: w.text }]));
}

/** The string values of each container with two or more, in document order (sibling-strings.ts). */
export function siblings(strings: readonly Walked[]): Array<Array<{ path: string; text: string }>> {
  const by = new Map<number, Array<{ path: string; text: string }>>();
  for (const w of strings) {
    if (w.parent === undefined) continue;
    const group = by.get(w.parent);
    if (group === undefined) by.set(w.parent, [w]);
    else group.push(w);
  }
  return [...by.values()].filter((group) => group.length > 1);
}

const QUOTED_KEY = /\["(?:[^"\\]|\\.)*"\]/g;

/**
 * A path as findings carry it (traces, error.data, messages, approvals): a key that is not a plain
 * identifier becomes ["…"]. Keys are the upstream's (or caller's) own text: one may be a card number
 * or a secret (which a trace must not keep) or "ignore your previous instructions" (which must not
 * reach the model inside the gateway's own message).
 */
export function shownPath(path: string): string {
  const safe = path.replace(QUOTED_KEY, '["…"]');
  return safe.length <= 120 ? safe : `${safe.slice(0, 119)}…`;
}
