// Who an admin action is by, for the admin log: the calling credential and the request id.
import type { RouteRequest } from '../http/types.js';
import type { Actor } from '../project/admin-actions.js';

export function actorOf(r: RouteRequest): Actor {
  return { principal: r.principal, requestId: r.ctx.requestId };
}
