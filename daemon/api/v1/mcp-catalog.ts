// /api/v1/mcp/templates, /api/v1/mcp/servers/from-template and /api/v1/mcp/registry: the template
// catalog (every template locked), the refusal that goes with it, and the bundled registry catalog.
import { GatewayError } from '../../../shared/errors.js';
import { fromTemplateBody, registryQuery } from '../../../shared/mcp-catalog-schemas.js';
import { defineRoute, type Route } from '../../http/types.js';
import { loadRegistryCatalog, searchRegistry, type RegistryCatalog } from '../../mcp/catalog/official-registry.js';
import { findTemplate, lockedMessage, TEMPLATES } from '../../mcp/catalog/templates.js';
import type { Deps } from '../../deps.js';

/** The registry snapshot is read here, once, when the routes are built: a broken file stops start-up. */
export function mcpCatalogRoutes(deps: Pick<Deps, 'log'>, catalog: RegistryCatalog = loadRegistryCatalog()): Route[] {
  deps.log.debug({ entries: catalog.items.length, dropped: catalog.dropped }, 'registry snapshot loaded');
  return [
    {
      method: 'GET',
      path: '/api/v1/mcp/templates',
      summary: 'List MCP connector templates',
      auth: 'viewer',
      async handler() {
        return { status: 200, body: { templates: TEMPLATES } };
      },
    },
    defineRoute({
      method: 'POST',
      path: '/api/v1/mcp/servers/from-template',
      summary: 'Register an MCP server from a template',
      auth: 'editor',
      body: fromTemplateBody,
      async handler(r) {
        const { body } = r;
        const template = findTemplate(body.template_id);
        if (!template)
          throw new GatewayError(
            'not_found',
            `No template with id ${JSON.stringify(body.template_id)}; GET /api/v1/mcp/templates lists them.`,
          );
        throw new GatewayError('mcp_template_unavailable', lockedMessage(template));
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/api/v1/mcp/registry',
      summary: 'Search the bundled MCP registry catalog',
      auth: 'viewer',
      query: registryQuery,
      async handler(r) {
        const { query } = r;
        return { status: 200, body: searchRegistry(catalog, query) };
      },
    }),
  ];
}
