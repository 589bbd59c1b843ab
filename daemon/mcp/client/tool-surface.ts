// A tool as a scan records it, and its fingerprint. The fingerprint covers the whole surface a
// model and a caller see of a tool: name, title, description, inputSchema, outputSchema and
// annotations. A change to any of them (a reworded description, a widened schema, a tool that
// stops claiming readOnlyHint) changes the fingerprint and so voids an admission; fields that do
// not change what the tool is or does (icons, _meta, execution hints) are left out, so cosmetic
// churn does not block a tool. The hash is SHA-256 over the RFC 8785 canonical JSON of those
// fields, so key order, whitespace and number spelling on the wire do not matter.
import { createHash } from 'node:crypto';
import { canonicalJson } from '../../../shared/canonical-json.js';
import { McpClientError } from './errors.js';

export interface McpTool {
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  readonly inputSchema: Readonly<Record<string, unknown>>;
  readonly outputSchema?: Readonly<Record<string, unknown>>;
  readonly annotations?: Readonly<Record<string, unknown>>;
}

/** The fields the fingerprint covers, in one place. */
export const TOOL_SURFACE_FIELDS = ['name', 'title', 'description', 'inputSchema', 'outputSchema', 'annotations'] as const;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The surface of a tool: exactly TOOL_SURFACE_FIELDS, absent ones omitted. */
export function toolSurface(tool: McpTool): Record<string, unknown> {
  const surface: Record<string, unknown> = {};
  for (const field of TOOL_SURFACE_FIELDS) {
    if (tool[field] !== undefined) surface[field] = tool[field];
  }
  return surface;
}

/** `sha256:` + 64 lower-case hex digits over the canonical JSON of the tool's surface. */
export function toolFingerprint(tool: McpTool): string {
  return `sha256:${createHash('sha256')
    .update(canonicalJson(toolSurface(tool)))
    .digest('hex')}`;
}

function invalid(index: number, detail: string): McpClientError {
  return new McpClientError('invalid_response', `tools/list entry ${index}: ${detail}`);
}

/**
 * Reads one entry of a tools/list result into an McpTool, keeping only the surface fields. The
 * entry must have a string name and an object inputSchema, and the optional fields their types
 * (null counts as absent);
 * whether the schema is valid JSON Schema is the classifier's question, not the protocol's.
 */
export function parseTool(raw: unknown, index: number): McpTool {
  if (!isObject(raw)) throw invalid(index, 'not an object');
  const { name, inputSchema } = raw;
  // Some servers spell an absent optional field as null; it is read as absent.
  const [title, description, outputSchema, annotations] = (['title', 'description', 'outputSchema', 'annotations'] as const).map((field) =>
    raw[field] === null ? undefined : raw[field],
  );
  if (typeof name !== 'string' || name === '') throw invalid(index, 'name is not a non-empty string');
  if (!isObject(inputSchema)) throw invalid(index, `tool ${JSON.stringify(name)} has no inputSchema object`);
  for (const [field, value] of [
    ['title', title],
    ['description', description],
  ] as const) {
    if (value !== undefined && typeof value !== 'string') throw invalid(index, `tool ${JSON.stringify(name)}: ${field} is not a string`);
  }
  for (const [field, value] of [
    ['outputSchema', outputSchema],
    ['annotations', annotations],
  ] as const) {
    if (value !== undefined && !isObject(value)) throw invalid(index, `tool ${JSON.stringify(name)}: ${field} is not an object`);
  }
  return {
    name,
    ...(title !== undefined ? { title: title as string } : {}),
    ...(description !== undefined ? { description: description as string } : {}),
    inputSchema,
    ...(outputSchema !== undefined ? { outputSchema: outputSchema as Record<string, unknown> } : {}),
    ...(annotations !== undefined ? { annotations: annotations as Record<string, unknown> } : {}),
  };
}
