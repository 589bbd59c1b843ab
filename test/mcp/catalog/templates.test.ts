// The template catalog: common connectors with every spec field, all locked because their sign-in
// method is one the gateway cannot attach.
import t from 'tap';
import { ATTACHABLE_AUTH, MCP_RULES } from '../../../shared/mcp-schemas.js';
import { findTemplate, lockedMessage, TEMPLATES } from '../../../daemon/mcp/catalog/templates.js';

const FIELDS = [
  'auth_method',
  'available',
  'category',
  'connector_type',
  'default_policies',
  'description',
  'id',
  'name',
  'unavailable_reason',
];

t.test('a handful of common connectors, every spec field, all unavailable', async (t) => {
  t.ok(TEMPLATES.length >= 6);
  for (const id of ['github', 'slack', 'google-drive', 'jira', 'notion', 'salesforce']) t.ok(findTemplate(id), id);
  t.equal(new Set(TEMPLATES.map((x) => x.id)).size, TEMPLATES.length, 'ids are unique');
  for (const tpl of TEMPLATES) {
    t.same(Object.keys(tpl).sort(), FIELDS, tpl.id);
    t.equal(tpl.available, false);
    t.equal(tpl.unavailable_reason, 'auth_method_unsupported');
    t.notOk(
      (ATTACHABLE_AUTH as readonly string[]).includes(tpl.auth_method),
      `${tpl.id}: the reason holds, its sign-in cannot be attached`,
    );
    t.ok(tpl.default_policies.length > 0);
    for (const p of tpl.default_policies) t.ok((MCP_RULES as readonly string[]).includes(p.action), `${tpl.id}/${p.tool}`);
  }
  t.ok(
    TEMPLATES.every((x) => x.default_policies.some((p) => p.action === 'DENY')),
    'each denies its destructive tool by default',
  );
  t.equal(findTemplate('nope'), undefined);
});

t.test('the locked message names the sign-in method', async (t) => {
  const message = lockedMessage(findTemplate('github')!);
  t.match(message, /OAuth 2\.0/);
  t.match(message, /auth_method oauth2/);
  t.match(message, /bearer or header/);
});
