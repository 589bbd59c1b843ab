// gatewayctl stop activate: sets the project emergency stop (project keys are refused everywhere).
import { Flags } from '@oclif/core';
import { GatewayCommand } from '../../base-command.js';
import { describeStop, type StopState } from './status.js';

export default class StopActivate extends GatewayCommand {
  static override summary = 'Activate the project emergency stop: project keys are refused, user tokens may only read and lift.';
  static override examples = ['<%= config.bin %> stop activate --reason "incident 42"'];
  static override flags = {
    reason: Flags.string({ summary: 'Why, for the admin log and the stop status.' }),
  };

  async run(): Promise<StopState & { approvals_ended?: number }> {
    const { flags } = await this.parse(StopActivate);
    const body = flags.reason === undefined ? {} : { reason: flags.reason };
    const state = await (await this.api()).request<StopState & { approvals_ended?: number }>(
      'POST',
      '/api/v1/project/emergency-stop',
      body,
    );
    const ended = state.approvals_ended ?? 0;
    this.log(`${describeStop(state)} ${ended} open approval request${ended === 1 ? '' : 's'} ended (now CANCELLED).`);
    return state;
  }
}
