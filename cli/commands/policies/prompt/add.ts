// gatewayctl policies prompt add: a new prompt policy (Admin). The body is checked with the
// daemon's own schema first; the detector's configuration is checked by the daemon.
import { Flags } from '@oclif/core';
import { DETECTORS, POLICY_ACTIONS, policyCreateBody } from '../../../../shared/verify-policy-schemas.js';
import { GatewayCommand } from '../../../base-command.js';
import { checkPolicyBody, definedOnly, listFlag, policyFields, policyFlags, policyLine, type PromptPolicy } from '../../../policy-flags.js';

export default class PoliciesPromptAdd extends GatewayCommand {
  static override summary = 'Add a prompt policy (Admin): a detector, an action, and where it applies.';
  static override aliases = ['policies:prompt:create'];
  static override examples = [
    '<%= config.bin %> policies prompt add --name Payroll --detector keywords --action REQUIRE_APPROVAL --config-json \'{"words":["payroll"]}\'',
    '<%= config.bin %> policies prompt add --name "Shadow AI" --detector keywords --action REDIRECT --sources browser --redirect-url https://ai.example/approved --config-json \'{"words":["chatbot"]}\'',
  ];

  static override flags = {
    ...policyFlags,
    name: Flags.string({ summary: 'Name of the policy, unique in the project.', required: true }),
    detector: Flags.string({ summary: 'The detector that finds what the policy is about.', options: [...DETECTORS], required: true }),
    action: Flags.string({ summary: 'What happens on a finding.', options: [...POLICY_ACTIONS], required: true }),
    disabled: Flags.boolean({ summary: 'Create it disabled.' }),
  };

  async run(): Promise<PromptPolicy> {
    const { flags } = await this.parse(PoliciesPromptAdd);
    const scope = definedOnly({ sources: listFlag(flags.sources), environments: listFlag(flags.environments) });
    const body = checkPolicyBody(policyCreateBody, {
      ...policyFields(flags),
      detector: flags.detector,
      ...(Object.keys(scope).length > 0 ? { scope } : {}),
      enabled: !flags.disabled,
    });
    const created = await (await this.api()).request<PromptPolicy>('POST', '/api/v1/verify/policies', body);
    this.log(`Added prompt policy ${policyLine(created)}.`);
    return created;
  }
}
