// gatewayctl stop status: whether the project emergency stop is active, since when, by whom.
import { GatewayCommand } from '../../base-command.js';

export interface StopState {
  active: boolean;
  reason: string | null;
  activated_at: string | null;
  activated_by: string | null;
}

export function describeStop(state: StopState): string {
  if (!state.active) return 'Emergency stop: not active.';
  const reason = state.reason ? ` Reason: ${state.reason}` : '';
  return `Emergency stop: ACTIVE since ${state.activated_at ?? '?'} (by ${state.activated_by ?? 'unknown'}).${reason}`;
}

export default class StopStatus extends GatewayCommand {
  static override summary = 'Show whether the project emergency stop is active.';
  static override examples = ['<%= config.bin %> stop status', '<%= config.bin %> stop status --json'];

  async run(): Promise<StopState> {
    await this.parse(StopStatus);
    const state = await (await this.api()).request<StopState>('GET', '/api/v1/project/emergency-stop');
    this.log(describeStop(state));
    return state;
  }
}
