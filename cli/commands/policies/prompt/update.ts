// gatewayctl policies prompt update: changes only what the flags give (Admin). The daemon replaces
// scope and action_config whole, so a half given here (--sources without --environments, or one of
// --redirect-url and --message) is completed from the stored policy first.
import { Args, Flags } from '@oclif/core';
import { policyPatchBody } from '../../../../shared/verify-policy-schemas.js';
import { GatewayCommand } from '../../../base-command.js';
import { UsageError } from '../../../errors.js';
import { checkPolicyBody, listFlag, policyFields, policyFlags, policyLine, type PromptPolicy } from '../../../policy-flags.js';

export default class PoliciesPromptUpdate extends GatewayCommand {
  static override summary = 'Change a prompt policy (Admin); only what the flags give changes. The detector cannot change.';
  static override examples = [
    '<%= config.bin %> policies prompt update POLICY_ID --disable',
    '<%= config.bin %> policies prompt update POLICY_ID --action BLOCK --environments prod,staging',
  ];

  static override args = {
    id: Args.string({ description: 'ID of the policy (see policies prompt list).', required: true }),
  };

  static override flags = {
    ...policyFlags,
    enable: Flags.boolean({ summary: 'Enable the policy.', exclusive: ['disable'] }),
    disable: Flags.boolean({ summary: 'Disable the policy.', exclusive: ['enable'] }),
  };

  async run(): Promise<PromptPolicy> {
    const { args, flags } = await this.parse(PoliciesPromptUpdate);
    const fields = policyFields(flags);
    if (flags.enable || flags.disable) fields.enabled = Boolean(flags.enable);
    const sources = listFlag(flags.sources);
    const environments = listFlag(flags.environments);
    const scopeGiven = sources !== undefined || environments !== undefined;
    if (Object.keys(fields).length === 0 && !scopeGiven) {
      const names = [...Object.keys(policyFlags), 'enable', 'disable'].map((f) => `--${f}`);
      throw new UsageError(`nothing to change: give at least one of ${names.join(', ')}`);
    }
    // Before any request: valid stand-ins for the halves that will come from the stored policy.
    checkPolicyBody(policyPatchBody, {
      ...fields,
      ...(scopeGiven ? { scope: { sources: sources ?? ['api'], environments: environments ?? ['*'] } } : {}),
    });

    const api = await this.api();
    const route = `/api/v1/verify/policies/${encodeURIComponent(args.id)}`;
    const halfScope = scopeGiven && (sources === undefined || environments === undefined);
    const stored = halfScope || fields.action_config !== undefined ? await api.request<PromptPolicy>('GET', route) : undefined;
    const patch: Record<string, unknown> = { ...fields };
    if (scopeGiven) patch.scope = { sources: sources ?? stored!.scope.sources, environments: environments ?? stored!.scope.environments };
    if (fields.action_config !== undefined) patch.action_config = { ...stored!.action_config, ...(fields.action_config as object) };
    const body = checkPolicyBody(policyPatchBody, patch);
    const updated = await api.request<PromptPolicy>('PATCH', route, body);
    this.log(`Updated prompt policy ${policyLine(updated)}: ${Object.keys(body).join(', ')}.`);
    return updated;
  }
}
