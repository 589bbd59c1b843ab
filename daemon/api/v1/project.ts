// /api/v1/project (settings) and /api/v1/project/emergency-stop (set, read, lift).
import { z } from 'zod';
import { projectPatchBody, stopBody } from '../../../shared/schemas.js';
import { defineRoute, type Route } from '../../http/types.js';
import { activateStop, getStop, liftStop } from '../../project/emergency-stop.js';
import { getProject, updateProject } from '../../project/settings.js';
import type { Deps } from '../../deps.js';
import { actorOf } from '../actor.js';

const optionalStopBody = z.union([stopBody, z.null()]).transform((b) => b ?? {});

export function projectRoutes(deps: Deps): Route[] {
  return [
    {
      method: 'GET',
      path: '/api/v1/project',
      summary: 'Project settings',
      auth: 'viewer',
      operatorRecovery: true,
      async handler(r) {
        return { status: 200, body: await getProject(deps.sql, r.principal.projectId) };
      },
    },
    defineRoute({
      method: 'PATCH',
      path: '/api/v1/project',
      summary: 'Change project settings',
      auth: 'admin',
      operatorRecovery: true,
      body: projectPatchBody,
      async handler(r) {
        const { body: patch } = r;
        return { status: 200, body: await updateProject(deps.sql, r.principal.projectId, patch, actorOf(r)) };
      },
    }),
    {
      method: 'GET',
      path: '/api/v1/project/emergency-stop',
      summary: 'Project emergency stop status',
      auth: 'viewer',
      operatorRecovery: true,
      async handler(r) {
        return { status: 200, body: await getStop(deps.sql, r.principal.projectId) };
      },
    },
    defineRoute({
      // Allowed during the stop so that a second set answers 409 already_active rather than 403.
      method: 'POST',
      path: '/api/v1/project/emergency-stop',
      summary: 'Activate the project emergency stop',
      auth: 'admin',
      allowedDuringStop: true,
      operatorRecovery: true,
      body: optionalStopBody,
      async handler(r) {
        return { status: 200, body: await activateStop(deps.sql, r.principal.projectId, r.body.reason ?? null, actorOf(r)) };
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/api/v1/project/emergency-stop/lift',
      summary: 'Lift the project emergency stop',
      auth: 'admin',
      allowedDuringStop: true,
      operatorRecovery: true,
      body: optionalStopBody,
      async handler(r) {
        return { status: 200, body: await liftStop(deps.sql, r.principal.projectId, r.body.reason ?? null, actorOf(r)) };
      },
    }),
  ];
}
