// Mcp-Param-* headers (2026-07-28 Streamable HTTP, "Schema Extension", SEP-2243): a tool's inputSchema
// marks an argument reachable through `properties` with `x-mcp-header: Name`, and a client repeats its
// value in the header `Mcp-Param-Name` (a string as it is, an integer in decimal, a boolean as
// true/false; one that is not plain ASCII as =?base64?…?=) so routing layers need not read the body.
// An upstream may read the header rather than the body, so the header is one more way to say what the
// tool gets: a tools/call whose Mcp-Param-* header names no declared argument or
// disagrees with it is refused (400, -32020) before any decision, so the approval bound to the body and
// the inspection of the body cover what the headers say; and the header goes upstream with the value
// forwarded (an argument a REDACT policy masked is masked in its header too). On any other method an
// Mcp-Param-* header names nothing and is refused (headers.ts).
import type { IncomingHttpHeaders } from 'node:http';
import { decodeHeaderValue } from './headers.js';

const PREFIX = 'mcp-param-';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Declared header name (lower-cased) -> the argument's path, from the `properties` chain of the schema. */
export function declaredParams(inputSchema: unknown): Map<string, readonly string[]> {
  const out = new Map<string, readonly string[]>();
  const visit = (node: unknown, path: readonly string[], depth: number): void => {
    if (!isObject(node) || depth > 32) return;
    const name = node['x-mcp-header'];
    if (typeof name === 'string' && name !== '' && path.length > 0 && !out.has(name.toLowerCase())) out.set(name.toLowerCase(), path);
    if (isObject(node.properties)) for (const [key, child] of Object.entries(node.properties)) visit(child, [...path, key], depth + 1);
  };
  visit(inputSchema, [], 0);
  return out;
}

function valueAt(root: unknown, path: readonly string[]): unknown {
  let node = root;
  for (const key of path) {
    if (!isObject(node) || !Object.hasOwn(node, key)) return undefined;
    node = node[key];
  }
  return node;
}

/** The header form of an argument's value (before the Base64 wrapping); undefined when it has none. */
function headerText(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return undefined;
}

const PLAIN = /^[\x20-\x7e\t]*$/;

/** The value as a client sends it: plain ASCII as it is, anything else (or what looks like the wrapping) wrapped. */
function encode(text: string): string {
  const plain = text !== '' && text === text.trim() && PLAIN.test(text) && !(text.startsWith('=?base64?') && text.endsWith('?='));
  return plain ? text : `=?base64?${Buffer.from(text, 'utf8').toString('base64')}?=`;
}

function paramHeaders(headers: IncomingHttpHeaders): [string, string][] {
  return Object.entries(headers)
    .filter(([name, v]) => name.startsWith(PREFIX) && v !== undefined)
    .map(([name, v]) => [name, Array.isArray(v) ? v.join(', ') : (v as string)]);
}

/** Null when every Mcp-Param-* header agrees with the argument its tool declares for it; else what does not. */
export function paramHeaderMismatch(
  headers: IncomingHttpHeaders,
  inputSchema: unknown,
  args: Record<string, unknown> | undefined,
): string | null {
  const present = paramHeaders(headers);
  if (present.length === 0) return null;
  const declared = declaredParams(inputSchema);
  for (const [name, raw] of present) {
    const shown = `Mcp-Param-${name.slice(PREFIX.length)}`;
    const path = declared.get(name.slice(PREFIX.length));
    if (path === undefined) return `${shown} header names no argument the tool declares (x-mcp-header)`;
    const text = headerText(valueAt(args ?? {}, path));
    if (text === undefined || decodeHeaderValue(raw) !== text) return `${shown} header does not match arguments.${path.join('.')}`;
  }
  return null;
}

/** The upstream's headers with each Mcp-Param-* value taken from the arguments forwarded (masked ones masked). */
export function forwardedParamHeaders(
  out: Record<string, string>,
  inputSchema: unknown,
  forwarded: Record<string, unknown> | undefined,
): Record<string, string> {
  const names = Object.keys(out).filter((name) => name.startsWith(PREFIX));
  if (names.length === 0) return out; // the common call: no Mcp-Param-* header, no schema to walk
  const declared = declaredParams(inputSchema);
  const next = { ...out };
  for (const name of names) {
    const path = declared.get(name.slice(PREFIX.length));
    const text = path === undefined ? undefined : headerText(valueAt(forwarded ?? {}, path));
    if (text === undefined) delete next[name];
    else next[name] = encode(text);
  }
  return next;
}
