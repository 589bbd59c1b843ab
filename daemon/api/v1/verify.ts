// /api/v1/verify and what belongs to it: prompt policies (reads any role, writes Admin) and the
// field-role registry of structured input (reads any role, writes Admin).
import { GatewayError } from '../../../shared/errors.js';
import { fieldRolesBody, policyCreateBody, policyPatchBody } from '../../../shared/verify-policy-schemas.js';
import { verifyRequestBody } from '../../../shared/verify-request-schema.js';
import { defineRoute, type Route } from '../../http/types.js';
import { databaseDegraded } from '../../db/availability.js';
import { governanceHeaders } from '../../http/governance-headers.js';
import { setFieldRoles, readFieldRoles } from '../../verify/field-roles.js';
import { runVerify } from '../../verify/pipeline.js';
import { createPolicy, deletePolicy, getPolicy, listPolicies, updatePolicy } from '../../verify/prompt-policies.js';
import type { Deps } from '../../deps.js';
import { actorOf } from '../actor.js';

export function verifyRoutes(deps: Deps): Route[] {
  return [
    defineRoute({
      method: 'POST',
      path: '/api/v1/verify',
      summary: 'Verify a prompt: policies and detectors decide, a trace records it',
      auth: 'viewer',
      localized: true,
      governance: true,
      writesOnlyTraces: true,
      body: verifyRequestBody,
      async handler(r) {
        const { body } = r;
        const outcome = await runVerify(deps, r.principal.projectId, r.principal, body, r.ctx.locale ?? 'en');
        return { status: outcome.status, body: outcome.body, headers: governanceHeaders(outcome.written, databaseDegraded(deps.sql)) };
      },
    }),
    {
      method: 'GET',
      path: '/api/v1/verify/policies',
      summary: 'List prompt policies',
      auth: 'viewer',
      async handler(r) {
        return { status: 200, body: { policies: await listPolicies(deps.sql, r.principal.projectId) } };
      },
    },
    defineRoute({
      method: 'POST',
      path: '/api/v1/verify/policies',
      summary: 'Create a prompt policy',
      auth: 'admin',
      body: policyCreateBody,
      async handler(r) {
        const { body } = r;
        return { status: 201, body: await createPolicy(deps.sql, r.principal.projectId, body, actorOf(r)) };
      },
    }),
    {
      method: 'GET',
      path: '/api/v1/verify/policies/:id',
      summary: 'Read one prompt policy',
      auth: 'viewer',
      async handler(r) {
        return { status: 200, body: await getPolicy(deps.sql, r.principal.projectId, r.params.id!) };
      },
    },
    defineRoute({
      method: 'PATCH',
      path: '/api/v1/verify/policies/:id',
      summary: 'Change a prompt policy',
      auth: 'admin',
      body: policyPatchBody,
      async handler(r) {
        const { body } = r;
        return { status: 200, body: await updatePolicy(deps.sql, r.principal.projectId, r.params.id!, body, actorOf(r)) };
      },
    }),
    {
      method: 'DELETE',
      path: '/api/v1/verify/policies/:id',
      summary: 'Remove a prompt policy',
      auth: 'admin',
      async handler(r) {
        const deleted = await deletePolicy(deps.sql, r.principal.projectId, r.params.id!, actorOf(r));
        return { status: 200, body: { id: deleted.id, deleted: true } };
      },
    },
    {
      method: 'GET',
      path: '/api/v1/verify/field-roles/:tool',
      summary: 'The field roles of a tool (structured input)',
      auth: 'viewer',
      async handler(r) {
        const rows = await readFieldRoles(deps.sql, r.principal.projectId, r.params.tool!);
        if (rows.length === 0) throw new GatewayError('not_found', 'This tool is not in the field-role registry.');
        return { status: 200, body: { tool_name: r.params.tool, fields: Object.fromEntries(rows.map((x) => [x.field, x.role])) } };
      },
    },
    defineRoute({
      method: 'PUT',
      path: '/api/v1/verify/field-roles/:tool',
      summary: 'Set the field roles of a tool',
      auth: 'admin',
      body: fieldRolesBody,
      async handler(r) {
        const tool = r.params.tool!;
        if (tool.length > 200) throw new GatewayError('validation_error', 'Invalid request: tool: at most 200 characters');
        await setFieldRoles(deps.sql, r.principal.projectId, tool, r.body.fields, actorOf(r));
        return { status: 200, body: { tool_name: tool, fields: r.body.fields } };
      },
    }),
  ];
}
