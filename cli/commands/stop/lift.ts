// gatewayctl stop lift: ends the project emergency stop.
import { Flags } from '@oclif/core';
import { GatewayCommand } from '../../base-command.js';
import type { StopState } from './status.js';

export default class StopLift extends GatewayCommand {
  static override summary = 'Lift the project emergency stop.';
  static override examples = ['<%= config.bin %> stop lift --reason "resolved"'];
  static override flags = {
    reason: Flags.string({ summary: 'Why, for the admin log.' }),
  };

  async run(): Promise<StopState & { lifted_at?: string }> {
    const { flags } = await this.parse(StopLift);
    const body = flags.reason === undefined ? {} : { reason: flags.reason };
    const state = await (await this.api()).request<StopState & { lifted_at?: string }>('POST', '/api/v1/project/emergency-stop/lift', body);
    this.log(`Emergency stop lifted${state.lifted_at ? ` at ${state.lifted_at}` : ''}.`);
    return state;
  }
}
