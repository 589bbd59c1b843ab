// The HTTP front: one request id per request, route lookup (find-my-way), authentication,
// the emergency-stop and role guard, the rate limit, body reading, the handler, the reply.
// Tracks requests in flight so that shutdown can wait for them.
import { randomUUID } from 'node:crypto';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import findMyWay from 'find-my-way';
import { GatewayError } from '../../shared/errors.js';
import { assertDatabaseUp } from '../db/availability.js';
import type { Sql } from '../db/connect.js';
import type { Logger } from '../log.js';
import type { Metrics } from '../metrics.js';
import { RateLimiter } from '../project/rate-limit.js';
import { mayWriteState } from '../state-cache/may-write-state.js';
import { governanceHeaders } from './governance-headers.js';
import { authenticate, authorize } from './auth.js';
import { pickLocale } from './locale.js';
import { readJsonBody } from './read-body.js';
import { parseRequestTarget } from './request-target.js';
import { checkUrlInput } from './url-input.js';
import { parseInput, parseQuery } from './validate.js';
import { answerClientErrors } from './client-error.js';
import { checkOrigin } from './origin.js';
import { sendError, sendReply } from './respond.js';
import type { RequestContext, Route } from './types.js';

export interface HttpDeps {
  readonly sql: Sql;
  readonly log: Logger;
  readonly metrics: Metrics;
  /** Subsystems running degraded right now (the trace store), for the governance headers. */
  readonly degradedSubsystems: () => readonly string[];
  readonly bodyLimitBytes: number;
  /** Browser origins served (origin.ts) besides the gateway's own; a request whose Origin is neither is refused. */
  readonly allowedOrigins?: ReadonlySet<string>;
  /** The gateway's own public origin (GATEWAY_PUBLIC_URL or the listen address), served as a browser origin. */
  readonly ownOrigin?: () => string | null;
}

export interface GatewayServer {
  readonly server: http.Server;
  /** The route table it serves (the fuzz test walks every route). */
  readonly routes: readonly Route[];
  inFlight(): number;
  /** Stop accepting, wait for requests in flight up to the deadline, then cut what is left. */
  close(timeoutMs: number): Promise<void>;
}

const NO_ORIGINS: ReadonlySet<string> = new Set();

/** A request's context; its child logger (reqId, route) is made the first time something logs through it. */
function requestContext(root: Logger, requestId: string, route: string): RequestContext & { readonly logMade: boolean } {
  let log: Logger | undefined;
  return {
    requestId,
    principal: null,
    get log() {
      log ??= root.child({ reqId: requestId, route });
      return log;
    },
    get logMade() {
      return log !== undefined;
    },
  };
}
const SAFE_REQUEST_ID = /^[A-Za-z0-9._:-]{8,128}$/;

export function createServer(routes: readonly Route[], deps: HttpDeps): GatewayServer {
  const router = findMyWay({ ignoreTrailingSlash: true, caseSensitive: true });
  for (const route of routes) router.on(route.method, route.path, () => undefined, route);
  const limiter = new RateLimiter(deps.sql);
  let inFlight = 0;
  let closing = false;
  let drained: (() => void) | null = null;

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const started = process.hrtime.bigint();
    const incoming = req.headers['x-request-id'];
    const requestId = typeof incoming === 'string' && SAFE_REQUEST_ID.test(incoming) ? incoming : randomUUID();
    const url = parseRequestTarget(req.url);
    const found = router.find(req.method as 'GET', url.pathname);
    const route = found?.store as Route | undefined;
    const routeLabel = route?.path ?? 'unmatched';
    const ctx = requestContext(deps.log, requestId, routeLabel);
    res.setHeader('X-Request-Id', requestId);
    if (route?.localized) ctx.locale = pickLocale(req.headers['accept-language']);
    if (route?.governance) {
      ctx.governance = true;
      for (const [name, value] of Object.entries(governanceHeaders({ persisted: 'none', degradedSubsystems: deps.degradedSubsystems() })))
        res.setHeader(name, value);
    }
    if (closing) res.setHeader('Connection', 'close');
    let status = 500;
    try {
      checkOrigin(req.headers, deps.allowedOrigins ?? NO_ORIGINS, deps.ownOrigin?.() ?? null);
      if (!route || !found) throw notFoundOrMethod(router, url.pathname);
      const principal = route.auth === 'public' ? null : await authenticate(deps.sql, req, route);
      ctx.principal = principal;
      if (principal) {
        authorize(principal, route);
        if (!(route.operatorRecovery && principal.kind === 'user_token')) await limiter.take(principal.projectId);
        // Only governance routes decide from memory while the database is known down: the rest is 503 at once.
        if (!route.governance) assertDatabaseUp(deps.sql);
      }
      checkUrlInput(found.params, url.searchParams, url.rawQuery);
      // What the route declares is validated here, before its handler runs (which then never parses it).
      const query = route.query ? parseQuery(route.query, url.searchParams) : undefined;
      const raw =
        req.method === 'GET' || req.method === 'DELETE'
          ? undefined
          : await readJsonBody(req, deps.bodyLimitBytes, { allowNul: route.bodyMayHoldNul === true });
      const body = route.body ? parseInput(route.body, raw) : raw;
      const reply = await route.handler({ ctx, principal: principal!, params: found.params, query, body, req });
      await sendReply(res, reply);
      status = res.statusCode;
    } catch (err) {
      status = sendError(res, ctx, err);
    } finally {
      // A request that may have changed its project's settings (the rate limit among them) drops this daemon's view of its count.
      if (ctx.principal && route && mayWriteState(req.method, route)) limiter.forget(ctx.principal.projectId);
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      deps.metrics.observeRequest(req.method ?? 'GET', routeLabel, status, seconds);
      const ms = Math.round(seconds * 1e4) / 10;
      // The request's line with the child's bindings first, as its child would write it; none is made for it alone.
      if (ctx.logMade) ctx.log.info({ method: req.method, status, ms }, 'request');
      else deps.log.info({ reqId: requestId, route: routeLabel, method: req.method, status, ms }, 'request');
    }
  }

  const server = http.createServer((req, res) => {
    inFlight += 1;
    res.on('close', () => {
      inFlight -= 1;
      if (inFlight === 0 && drained) drained();
    });
    handle(req, res).catch((err: unknown) => {
      // Nothing may escape a request (an unhandled rejection ends the process): cut this one instead.
      deps.log.error({ err }, 'unexpected error outside the request pipeline');
      res.destroy();
    });
  });
  server.keepAliveTimeout = 5_000;
  server.headersTimeout = 30_000;
  server.requestTimeout = 120_000;
  answerClientErrors(server, deps.log);

  return {
    server,
    routes,
    inFlight: () => inFlight,
    async close(timeoutMs) {
      closing = true;
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      if (inFlight > 0) {
        await Promise.race([
          new Promise<void>((resolve) => {
            drained = resolve;
          }),
          new Promise<void>((resolve) => setTimeout(resolve, timeoutMs).unref()),
        ]);
      }
      server.closeAllConnections();
      await closed;
      await limiter.flush();
    },
  };
}

/** 404 for a path no route has; 405 with Allow (RFC 9110 15.5.6) for a method the path does not take. */
function notFoundOrMethod(router: findMyWay.Instance<findMyWay.HTTPVersion.V1>, path: string): GatewayError {
  const allowed = (['GET', 'POST', 'PATCH', 'DELETE', 'PUT'] as const).filter((m) => router.find(m, path));
  return allowed.length > 0
    ? new GatewayError('method_not_allowed', undefined, { Allow: allowed.join(', ') })
    : new GatewayError('not_found');
}
