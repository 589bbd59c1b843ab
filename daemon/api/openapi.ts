// The API reference as an OpenAPI 3.1 document, generated from the route table (routes.ts) and the
// zod schemas the handlers parse with, so it cannot drift from what the daemon serves: every route
// with its method, path, minimum role, path parameters, and its body and query schemas where the
// route declares them. Served at GET /api/v1/openapi.json and written to docs/openapi.json (npm run
// docs:openapi); test/api/openapi.test.ts fails when the file is stale or a route is missing.
import { z } from 'zod';
import type { Route } from '../http/types.js';
import { GATEWAY_VERSION } from '../version.js';

type Json = Record<string, unknown>;

const ERROR = {
  description: 'The error object: {error: {code, message, request_id, ...}}',
  content: {
    'application/json': {
      schema: {
        type: 'object',
        required: ['error'],
        properties: {
          error: {
            type: 'object',
            required: ['code', 'message'],
            properties: { code: { type: 'string' }, message: { type: 'string' }, request_id: { type: 'string' } },
          },
        },
      },
    },
  },
};

/** A zod schema as JSON Schema (what a client sends: the input side), without the top-level $schema. */
function jsonSchema(schema: z.ZodType): Json {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Json;
  return rest;
}

function queryParameters(schema: z.ZodType): Json[] {
  const s = jsonSchema(schema);
  const props = (s.properties ?? {}) as Record<string, Json>;
  const required = new Set((s.required as string[] | undefined) ?? []);
  return Object.entries(props).map(([name, p]) => ({ name, in: 'query', required: required.has(name), schema: p }));
}

/** The route's own description, then what the table says about it: the role, and its flags in words. */
function descriptionOf(route: Route): string {
  const who =
    route.auth === 'public'
      ? 'No credential needed.'
      : route.auth === 'extension'
        ? 'Only an extension key may call it.'
        : `Needs the ${route.auth} role or higher.`;
  const flags = [
    route.allowedDuringStop ? 'Allowed to user tokens during the project emergency stop.' : null,
    route.operatorRecovery ? "A user token's call is not counted against the rate limit (an operator can always recover)." : null,
    route.governance ? 'A governance answer: X-Gateway-Status and X-Gateway-Trace-Persisted on every answer, refusals included.' : null,
    route.localized ? 'Error messages follow Accept-Language (en, de, fr).' : null,
    route.body ? 'The body is validated against the schema below before anything runs (400 validation_error).' : null,
  ].filter((x) => x !== null);
  return [route.description, who, ...flags].filter((x) => x !== undefined).join(' ');
}

function operation(route: Route): Json {
  const params = [...route.path.matchAll(/:(\w+)/g)].map((m) => ({ name: m[1], in: 'path', required: true, schema: { type: 'string' } }));
  const open = route.auth === 'public';
  return {
    summary: route.summary,
    description: descriptionOf(route),
    operationId: `${route.method.toLowerCase()}${route.path.replace(/[^A-Za-z0-9]+(\w)?/g, (_, c: string | undefined) => (c ?? '').toUpperCase())}`,
    ...(route.deprecated ? { deprecated: true } : {}),
    'x-min-role': route.auth,
    ...(route.allowedDuringStop ? { 'x-allowed-during-emergency-stop': true } : {}),
    security: open ? [] : [{ bearer: [] }],
    parameters: [...params, ...(route.query ? queryParameters(route.query) : [])],
    ...(route.body ? { requestBody: { required: true, content: { 'application/json': { schema: jsonSchema(route.body) } } } } : {}),
    responses: {
      '200': { description: 'Success (201 for a creation, 202 when queued, 204 without a body: see the docs).' },
      ...(open ? {} : { '401': ERROR, '403': ERROR }),
      '400': ERROR,
      '404': ERROR,
    },
  };
}

export function openApiDocument(routes: readonly Route[]): Json {
  const paths: Record<string, Record<string, Json>> = {};
  for (const route of routes) {
    const path = route.path.replace(/:(\w+)/g, '{$1}');
    paths[path] ??= {};
    paths[path]![route.method.toLowerCase()] = operation(route);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'governance-gateway',
      version: GATEWAY_VERSION,
      license: { name: 'Proprietary (UNLICENSED)', identifier: 'LicenseRef-Proprietary' },
      description:
        'Generated from the route table and its zod schemas. Roles: viewer < editor < admin; x-min-role names the least a route needs.',
    },
    // Relative: the gateway that serves this document (GATEWAY_PUBLIC_URL, or its listen address).
    servers: [{ url: '/', description: 'The gateway that serves this document' }],
    components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
    paths: Object.fromEntries(Object.entries(paths).sort(([a], [b]) => a.localeCompare(b))),
  };
}

/** GET /api/v1/openapi.json (any role): the document of `routes`, this route included. */
export function openApiRoute(routes: readonly Route[]): Route {
  const route: Route = {
    method: 'GET',
    path: '/api/v1/openapi.json',
    summary: 'This document',
    auth: 'viewer',
    async handler() {
      return { status: 200, body: document };
    },
  };
  const document = openApiDocument([...routes, route]);
  return route;
}
