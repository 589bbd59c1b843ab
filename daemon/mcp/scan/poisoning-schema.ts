// The poisoning scan of a tool's input schema (poisoning.ts): every string and key within LIMITS,
// read as prose, value or identifier by where it sits, and whether the schema compiles.
import { clip, LIMITS, type PoisoningFinding } from './poisoning-finding.js';
import { type TextKind, textFindings } from './poisoning-text.js';
import { schemaProblem } from './schema-validity.js';

const IDENTIFIER_KEYWORDS = new Set([
  '$schema',
  '$id',
  '$ref',
  '$dynamicRef',
  '$anchor',
  '$dynamicAnchor',
  '$vocabulary',
  'format',
  'pattern',
  'type',
  'contentEncoding',
  'contentMediaType',
]);
const VALUE_KEYWORDS = new Set(['default', 'const', 'enum', 'examples']);
const SUBSCHEMA_MAPS = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas']);

// ---- the input schema ----

const pointerPart = (key: string): string => key.replace(/~/gu, '~0').replace(/\//gu, '~1');
const schemaWhere = (pointer: string): string => (pointer === '' ? 'inputSchema' : `inputSchema.${pointer}`);

/** What a node of the schema is: a (sub)schema, a map of named subschemas, or data (default, enum ...). */
type Role = 'schema' | 'map' | 'value';
interface Frame {
  readonly node: unknown;
  readonly pointer: string;
  readonly depth: number;
  readonly role: Role;
  readonly owner: string | null;
  readonly key: string | null;
}

function childFrame(f: Frame, key: string, value: unknown, isArray: boolean): Frame {
  const pointer = `${f.pointer}/${pointerPart(key)}`;
  const depth = f.depth + 1;
  if (isArray) return { node: value, pointer, depth, role: f.role, owner: f.owner, key: f.key };
  if (f.role === 'value') return { node: value, pointer, depth, role: 'value', owner: f.owner, key };
  if (f.role === 'map')
    return { node: value, pointer, depth, role: 'schema', owner: f.key === '$defs' || f.key === 'definitions' ? f.owner : key, key };
  const role: Role = VALUE_KEYWORDS.has(key)
    ? 'value'
    : SUBSCHEMA_MAPS.has(key) && typeof value === 'object' && value !== null && !Array.isArray(value)
      ? 'map'
      : 'schema';
  return { node: value, pointer, depth, role, owner: f.owner, key };
}

/** textFindings, remembered per scan for short strings: schemas repeat their keys and small values. */
function memoised(): typeof textFindings {
  const memo = new Map<string, PoisoningFinding[]>();
  return (text, where, kind, owner = null) => {
    if (text.length > 200) return textFindings(text, where, kind, owner);
    const key = `${kind}\u0000${owner ?? ''}\u0000${text}`;
    let found = memo.get(key);
    if (!found) memo.set(key, (found = textFindings(text, '', kind, owner)));
    return found.map((f) => ({ ...f, where }));
  };
}

/**
 * Walks the whole schema within LIMITS, checking every string and key. Says why it had to stop, if
 * it did, and how many subschemas it saw (what compiling costs).
 */
export function walkSchema(schema: unknown, out: PoisoningFinding[]): { truncated: string | null; subschemas: number } {
  const stack: Frame[] = [{ node: schema, pointer: '', depth: 0, role: 'schema', owner: null, key: null }];
  const check = memoised();
  let nodes = 0;
  let chars = 0;
  let subschemas = 0;
  let truncated: string | null = null;
  while (stack.length > 0) {
    const f = stack.pop()!;
    if (typeof f.node === 'string') {
      if (f.node.length > LIMITS.maxTextChars - chars)
        return { truncated: `more than ${LIMITS.maxTextChars} characters of text`, subschemas };
      chars += f.node.length;
      const kind: TextKind = f.role === 'value' ? 'value' : f.key !== null && IDENTIFIER_KEYWORDS.has(f.key) ? 'identifier' : 'prose';
      if (f.node !== '') out.push(...check(f.node, schemaWhere(f.pointer), kind, f.owner));
      continue;
    }
    if (typeof f.node !== 'object' || f.node === null) continue;
    if (f.depth >= LIMITS.maxDepth) {
      truncated ??= `deeper than ${LIMITS.maxDepth} levels at ${f.pointer}`;
      continue;
    }
    const isArray = Array.isArray(f.node);
    if (f.role === 'schema' && !isArray) subschemas += 1;
    const entries: Array<[string, unknown]> = isArray ? (f.node as unknown[]).map((v, i) => [String(i), v]) : Object.entries(f.node);
    // Members count when they are queued, so one object with a million keys is refused at once.
    if ((nodes += entries.length) > LIMITS.maxNodes) return { truncated: `more than ${LIMITS.maxNodes} nodes`, subschemas };
    for (let i = entries.length - 1; i >= 0; i--) {
      const [key, value] = entries[i]!;
      const child = childFrame(f, key, value, isArray);
      if (!isArray) {
        chars += key.length;
        out.push(...check(key, schemaWhere(child.pointer), f.role === 'value' ? 'value' : 'prose'));
      }
      stack.push(child);
    }
  }
  return { truncated, subschemas };
}

export function schemaValidity(schema: Readonly<Record<string, unknown>>): PoisoningFinding[] {
  const problem = schemaProblem(schema);
  return problem ? [{ code: problem.code, where: 'inputSchema', detail: clip(problem.detail) }] : [];
}
