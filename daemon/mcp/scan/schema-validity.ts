// Whether a tool's input schema is a JSON Schema a client can use: the dialect it declares
// (2020-12 unless it names draft-07 or 2019-09, which the SDKs emit), an object at the root, and
// compiled by ajv 8 in that dialect. One shared ajv per dialect; whatever a schema registers is
// removed after it, so tools cannot collide and memory stays flat scan after scan. Used by the
// poisoning heuristics (invalid_input_schema, scan_truncated when too complex to compile).
import { Ajv } from 'ajv/dist/ajv.js';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { Ajv2020 } from 'ajv/dist/2020.js';

// allErrors keeps ajv's generated code flat (the default nests one block per property and overflows
// the stack near 5 000 properties); the code is never run, so it is not optimised and has no messages.
const AJV_OPTIONS = {
  strict: false,
  logger: false,
  validateFormats: false,
  allErrors: true,
  messages: false,
  code: { optimize: false },
} as const;
/** The part of an ajv instance used here; the three dialect classes share it. */
interface Compiler {
  compile(schema: object): unknown;
  removeSchema(schema: object | string): unknown;
  readonly refs: Readonly<Record<string, unknown>>;
}
const DIALECTS = {
  '2020-12': (): Compiler => new Ajv2020(AJV_OPTIONS),
  '2019-09': (): Compiler => new Ajv2019(AJV_OPTIONS),
  'draft-07': (): Compiler => new Ajv(AJV_OPTIONS),
} as const;
type Dialect = keyof typeof DIALECTS;
const instances = new Map<Dialect, { ajv: Compiler; baseline: ReadonlySet<string> }>();

function dialectOf(declared: unknown): Dialect | null {
  if (declared === undefined) return '2020-12';
  if (typeof declared !== 'string') return null;
  const id = declared.replace(/^http:/u, 'https:').replace(/#$/u, '');
  if (id === 'https://json-schema.org/draft/2020-12/schema') return '2020-12';
  if (id === 'https://json-schema.org/draft/2019-09/schema') return '2019-09';
  if (id === 'https://json-schema.org/draft-07/schema') return 'draft-07';
  return null;
}

/**
 * Compiles in the dialect's one shared ajv and removes whatever the schema registered ($id, nested
 * $ids), so tools cannot collide with each other and memory does not grow scan after scan.
 */
function compileIn(dialect: Dialect, schema: Readonly<Record<string, unknown>>): void {
  let entry = instances.get(dialect);
  if (!entry) {
    const ajv = DIALECTS[dialect]();
    entry = { ajv, baseline: new Set(Object.keys(ajv.refs)) };
    instances.set(dialect, entry);
  }
  const { ajv, baseline } = entry;
  // Removing a schema by its $id would remove a meta-schema of the same id from the shared instance.
  if (typeof schema.$id === 'string' && baseline.has(schema.$id.replace(/#$/u, ''))) throw new Error(`$id ${schema.$id} is reserved`);
  try {
    ajv.compile(schema);
  } finally {
    ajv.removeSchema(schema);
    for (const key of Object.keys(ajv.refs)) if (!baseline.has(key)) ajv.removeSchema(key);
  }
}

/** Schemas left registered in the shared ajv instances beyond their meta-schemas: always 0 (tests check it). */
export function leftoverSchemaIds(): number {
  let n = 0;
  for (const { ajv, baseline } of instances.values()) n += Object.keys(ajv.refs).filter((k) => !baseline.has(k)).length;
  return n;
}

/** What is wrong with the schema, or null: invalid (with why), or too complex to compile. */
export function schemaProblem(
  schema: Readonly<Record<string, unknown>>,
): { code: 'invalid_input_schema' | 'scan_truncated'; detail: string } | null {
  const invalid = (detail: string) => ({ code: 'invalid_input_schema' as const, detail });
  const dialect = dialectOf(schema.$schema);
  if (!dialect) return invalid(`unsupported $schema ${JSON.stringify(schema.$schema)}`);
  if (schema.type !== undefined && schema.type !== 'object')
    return invalid(`root type is ${JSON.stringify(schema.type)}; tool arguments are an object`);
  try {
    compileIn(dialect, schema);
  } catch (err) {
    if (err instanceof RangeError) return { code: 'scan_truncated', detail: `too complex to compile: ${err.message}` };
    return invalid(`${dialect}: ${err instanceof Error ? err.message : String(err)}`);
  }
  return null;
}
