// /api/v1/keys (project API keys and user tokens) and /api/v1/extensions (extension keys).
import { createExtensionBody, createKeyBody } from '../../../shared/schemas.js';
import { defineRoute, type Route } from '../../http/types.js';
import { createCredential, listCredentials, revokeCredential } from '../../project/keys.js';
import type { Deps } from '../../deps.js';
import { GATEWAY_VERSION } from '../../version.js';
import { actorOf } from '../actor.js';

export function credentialRoutes(deps: Deps): Route[] {
  return [
    {
      // Who am I: lets gatewayctl login and whoami report the role and identity behind a token.
      method: 'GET',
      path: '/api/v1/me',
      summary: 'Who is calling: credential, role, project, versions',
      auth: 'viewer',
      async handler(r) {
        const p = r.principal;
        return {
          status: 200,
          body: {
            credential_id: p.credentialId,
            project_id: p.projectId,
            kind: p.kind,
            role: p.role,
            user_id: p.userId,
            name: p.name,
            gateway_version: GATEWAY_VERSION,
            // Only for an access token: the person or client the identity provider names (API keys' answer is unchanged).
            ...(p.subject ? { subject: { issuer: p.subject.issuer, sub: p.subject.sub, name: p.subject.name } } : {}),
          },
        };
      },
    },
    defineRoute({
      method: 'POST',
      path: '/api/v1/keys',
      summary: 'Create a project key or user token',
      auth: 'admin',
      body: createKeyBody,
      async handler(r) {
        const { body } = r;
        const kind = body.user_id ? 'user_token' : 'project_key';
        const c = await createCredential(
          deps.sql,
          r.principal.projectId,
          { kind, name: body.name, role: body.role, userId: body.user_id ?? null },
          actorOf(r),
        );
        return { status: 201, body: { id: c.id, name: c.name, role: c.role, user_id: c.user_id, kind: c.kind, key: c.token } };
      },
    }),
    {
      method: 'GET',
      path: '/api/v1/keys',
      summary: 'List project keys and user tokens',
      auth: 'admin',
      async handler(r) {
        return { status: 200, body: { keys: await listCredentials(deps.sql, r.principal.projectId, ['project_key', 'user_token']) } };
      },
    },
    {
      method: 'DELETE',
      path: '/api/v1/keys/:id',
      summary: 'Revoke a key or user token',
      auth: 'admin',
      async handler(r) {
        return {
          status: 200,
          body: await revokeCredential(deps.sql, r.principal.projectId, r.params.id!, ['project_key', 'user_token'], actorOf(r)),
        };
      },
    },
    defineRoute({
      method: 'POST',
      path: '/api/v1/extensions',
      summary: 'Create an extension key',
      auth: 'admin',
      body: createExtensionBody,
      async handler(r) {
        const { body } = r;
        const c = await createCredential(
          deps.sql,
          r.principal.projectId,
          { kind: 'extension', name: body.name, role: null, userId: null },
          actorOf(r),
        );
        return { status: 201, body: { id: c.id, name: c.name, api_key: c.token } };
      },
    }),
    {
      method: 'GET',
      path: '/api/v1/extensions',
      summary: 'List extension keys',
      auth: 'admin',
      async handler(r) {
        const rows = await listCredentials(deps.sql, r.principal.projectId, ['extension']);
        return { status: 200, body: { extensions: rows.map(({ role: _role, user_id: _user, kind: _kind, ...e }) => e) } };
      },
    },
    {
      method: 'DELETE',
      path: '/api/v1/extensions/:id',
      summary: 'Revoke an extension key',
      auth: 'admin',
      async handler(r) {
        return { status: 200, body: await revokeCredential(deps.sql, r.principal.projectId, r.params.id!, ['extension'], actorOf(r)) };
      },
    },
  ];
}
