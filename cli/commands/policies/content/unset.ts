// gatewayctl policies content unset: removes the policy of one scope, direction and detector
// (Admin); the next wider one applies again (the server's, the project's, or the built-in default).
import { GatewayCommand } from '../../../base-command.js';
import { CONTENT_POLICIES_ROUTE, policyFor, policyLine, scopeFlags, type ContentPolicyList } from '../../../content-policies.js';
import { UsageError } from '../../../errors.js';
import { resolveServer } from '../../../name-or-id.js';

export default class PoliciesContentUnset extends GatewayCommand {
  static override summary = 'Remove a content policy; the wider one (or the default) applies again (Admin).';
  static override examples = [
    '<%= config.bin %> policies content unset --direction arguments --detector pii',
    '<%= config.bin %> policies content unset --direction results --detector injection --server SERVER_ID --tool fetch',
  ];

  static override flags = scopeFlags;

  async run(): Promise<{ id: string; deleted: true }> {
    const { flags } = await this.parse(PoliciesContentUnset);
    const api = await this.api();
    const server = flags.server === undefined ? undefined : (await resolveServer(api, flags.server, this.config.bin, '--server')).id;
    const existing = policyFor(await api.request<ContentPolicyList>('GET', CONTENT_POLICIES_ROUTE), { ...flags, server });
    if (!existing) throw new UsageError('there is no content policy for this scope, direction and detector (see policies content list)');
    const result = await api.request<{ id: string; deleted: true }>(
      'DELETE',
      `${CONTENT_POLICIES_ROUTE}/${encodeURIComponent(existing.id)}`,
    );
    this.log(`Removed content policy ${policyLine(existing)}.`);
    return result;
  }
}
