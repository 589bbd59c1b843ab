// The shapes every route shares: who is calling, what a route declares, what a handler returns.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { z, ZodType } from 'zod';
import type { Principal, Role } from '../../shared/credentials.js';
import type { Logger } from '../log.js';
import type { Locale } from './locale.js';

export interface RequestContext {
  readonly requestId: string;
  readonly log: Logger;
  principal: Principal | null;
  /** Set on localized routes (verify): the language of error messages, from Accept-Language. */
  locale?: Locale;
  /** Set on governance routes (verify, MCP proxy): a database outage is 503 with no body. */
  governance?: boolean;
}

/** What a schema-declared input is once the route table validated it; undeclared, it is raw. */
type Declared<S, Raw> = S extends ZodType ? z.output<S> : Raw;

export interface RouteRequest<Body = unknown, Query = unknown> {
  readonly ctx: RequestContext;
  readonly principal: Principal;
  readonly params: Readonly<Record<string, string | undefined>>;
  /** The route's query schema's output, validated before the handler runs; a route that declares none reads no query. */
  readonly query: Query;
  /** The route's body schema's output, validated before the handler runs; undeclared, the parsed JSON. */
  readonly body: Body;
  readonly req: IncomingMessage;
}

export type Reply =
  | { readonly status: number; readonly body?: unknown; readonly headers?: Record<string, string> }
  | { readonly stream: (res: ServerResponse) => Promise<void> };

export type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE' | 'PUT';

export interface Route<B extends ZodType | undefined = ZodType | undefined, Q extends ZodType | undefined = ZodType | undefined> {
  readonly method: Method;
  readonly path: string;
  /** One line for the OpenAPI document's operation summary (and for a reader of this table). */
  readonly summary: string;
  /** More than the summary, when there is more to say; the document adds the role and the flags below. */
  readonly description?: string;
  /** An old name kept so that scripts using it keep working: the OpenAPI document marks it deprecated. */
  readonly deprecated?: boolean;
  /** Minimum role, or 'extension' for routes only an extension key may call, or 'public'. */
  readonly auth: Role | 'extension' | 'public';
  /** A write that user tokens may still make while the project emergency stop is active. */
  readonly allowedDuringStop?: boolean;
  /** Not counted against the project rate limit for user tokens, so an operator can always recover. */
  readonly operatorRecovery?: boolean;
  /** Error messages follow Accept-Language (the verify endpoints). */
  readonly localized?: boolean;
  /** A governance response: carries the X-Gateway-* headers on every answer, refusals included. */
  readonly governance?: boolean;
  /** Writes traces but none of the state the caches hold: keeps this daemon's state cache and rate-limit count (state-cache/cache.ts). */
  readonly writesOnlyTraces?: boolean;
  /**
   * The body schema: the route table validates every body with it before the handler runs (400
   * validation_error naming each field), and the OpenAPI document (daemon/api/openapi.ts) shows it.
   */
  readonly body?: B;
  /** The query schema, validated the same way (a declared parameter given twice is refused, server.ts). */
  readonly query?: Q;
  /** The body may hold NUL characters: the handler forwards them as sent and stores them safely (lone surrogates are still refused). */
  readonly bodyMayHoldNul?: boolean;
  // A method, not a function property: a route with schemas is a Route of the table (the handler's
  // request is narrower only in what the table has already checked).
  handler(request: RouteRequest<Declared<B, unknown>, Declared<Q, undefined>>): Promise<Reply>;
}

/** A route whose handler sees its declared body and query as their schemas' output (types inferred from them). */
export function defineRoute<B extends ZodType | undefined = undefined, Q extends ZodType | undefined = undefined>(
  route: Route<B, Q>,
): Route {
  return route;
}
