// gatewayctl policies content set: sets what one detector does on one direction, for the project,
// a server or a tool of a server (Admin). Creates the policy, or changes the one that scope
// already has; each change is a POLICY_CHANGE trace and an admin-log entry.
import { Flags } from '@oclif/core';
import type { ContentPolicy } from '../../../../shared/mcp-content-schemas.js';
import { GatewayCommand } from '../../../base-command.js';
import {
  actionFlag,
  CONTENT_POLICIES_ROUTE,
  policyFor,
  policyLine,
  scopeFlags,
  type ContentPolicyList,
} from '../../../content-policies.js';
import { UsageError } from '../../../errors.js';
import { resolveServer } from '../../../name-or-id.js';

export default class PoliciesContentSet extends GatewayCommand {
  static override summary = 'Set what a content detector does with arguments or results (Admin).';
  static override examples = [
    '<%= config.bin %> policies content set --direction arguments --detector pii --action REDACT',
    '<%= config.bin %> policies content set --direction results --detector injection --action FLAG --server SERVER_ID',
    '<%= config.bin %> policies content set --direction arguments --detector secrets --action OFF --server SERVER_ID --tool deploy',
    '<%= config.bin %> policies content set --direction results --detector injection --action BLOCK --config \'{"block_threshold":0.7}\'',
  ];

  static override flags = {
    ...scopeFlags,
    action: actionFlag,
    config: Flags.string({ summary: "The detector's configuration as JSON (as for prompt policies)." }),
  };

  async run(): Promise<ContentPolicy> {
    const { flags } = await this.parse(PoliciesContentSet);
    let config: Record<string, unknown> | undefined;
    if (flags.config !== undefined) {
      try {
        config = JSON.parse(flags.config);
      } catch {
        throw new UsageError('--config must be a JSON object');
      }
      if (config === null || typeof config !== 'object' || Array.isArray(config)) throw new UsageError('--config must be a JSON object');
    }
    const api = await this.api();
    const server = flags.server === undefined ? undefined : (await resolveServer(api, flags.server, this.config.bin, '--server')).id;
    const existing = policyFor(await api.request<ContentPolicyList>('GET', CONTENT_POLICIES_ROUTE), { ...flags, server });
    const result = existing
      ? await api.request<ContentPolicy>('PATCH', `${CONTENT_POLICIES_ROUTE}/${encodeURIComponent(existing.id)}`, {
          action: flags.action,
          ...(config !== undefined ? { config } : {}),
        })
      : await api.request<ContentPolicy>('POST', CONTENT_POLICIES_ROUTE, {
          direction: flags.direction,
          detector: flags.detector,
          action: flags.action,
          ...(server !== undefined ? { server_id: server } : {}),
          ...(flags.tool !== undefined ? { tool_name: flags.tool } : {}),
          ...(config !== undefined ? { config } : {}),
        });
    this.log(`${existing ? 'Changed' : 'Set'} content policy ${policyLine(result)}.`);
    return result;
  }
}
