// The members of a message left out of inspection, by name: a function cannot cross to an
// inspection worker (inspect-pool.ts), a name can, and both threads read this one table.
import type { Skip } from './json-strings.js';

/**
 * Members that are protocol, not content (`resultType` "complete" is no one's words): skipped when
 * their value is a token that cannot hold a sentence; anything else in them is inspected like content.
 */
const PROTOCOL_MEMBERS: ReadonlySet<string> = new Set(['resultType', 'type', 'mimeType', 'progressToken', 'level', 'logger']);
const TOKEN = /^[\w./+-]{0,64}$/;

function binaryMember(key: string, parent: Readonly<Record<string, unknown>>): boolean {
  return key === 'blob' || (key === 'data' && (parent.type === 'image' || parent.type === 'audio'));
}

/** What comes back from an upstream (results.ts): protocol tokens skipped, binary content skipped and counted. */
const upstreamMessage: Skip = (key, parent) => {
  if (PROTOCOL_MEMBERS.has(key)) {
    const value = parent[key];
    if (typeof value === 'string' && TOKEN.test(value)) return true;
  }
  return binaryMember(key, parent) ? 'binary' : false;
};

export const SKIPS = { upstreamMessage } as const satisfies Readonly<Record<string, Skip>>;

export type SkipName = keyof typeof SKIPS;
