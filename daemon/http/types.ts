// The shapes every route shares: who is calling, what a route declares, what a handler returns.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ZodType } from 'zod';
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

export interface RouteRequest {
  readonly ctx: RequestContext;
  readonly principal: Principal;
  readonly params: Readonly<Record<string, string | undefined>>;
  readonly query: URLSearchParams;
  readonly body: unknown;
  readonly req: IncomingMessage;
}

export type Reply =
  | { readonly status: number; readonly body?: unknown; readonly headers?: Record<string, string> }
  | { readonly stream: (res: ServerResponse) => Promise<void> };

export type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE' | 'PUT';

export interface Route {
  readonly method: Method;
  readonly path: string;
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
  /** The body schema the handler parses with (documentation: the OpenAPI document, daemon/api/openapi.ts). */
  readonly body?: ZodType;
  /** The query schema the handler parses with (documentation). */
  readonly query?: ZodType;
  /** The body may hold NUL characters: the handler forwards them as sent and stores them safely (lone surrogates are still refused). */
  readonly bodyMayHoldNul?: boolean;
  readonly handler: (request: RouteRequest) => Promise<Reply>;
}
