// gatewayctl dashboard: the command center in the terminal, once, or refreshed every 30 seconds
// (the spec's polling interval) with --watch until interrupted.
import { Flags } from '@oclif/core';
import { CC_RANGES, type CommandCenter } from '../../shared/command-center-schemas.js';
import { GatewayCommand } from '../base-command.js';
import { CliFailure, UsageError } from '../errors.js';
import { renderDashboard } from '../dashboard-view.js';

const CLEAR = '\u001b[H\u001b[2J';

export default class Dashboard extends GatewayCommand {
  static override summary = 'Show the command center: KPIs, timeline, top policies, agents, MCP, contract and action items.';
  static override examples = [
    '<%= config.bin %> dashboard',
    '<%= config.bin %> dashboard --range 7d --watch',
    '<%= config.bin %> dashboard --range 1h --json',
  ];

  static override flags = {
    range: Flags.string({ summary: 'Window: 1h, 6h, 24h, 7d or 30d.', options: [...CC_RANGES], default: '24h' }),
    watch: Flags.boolean({ summary: 'Refresh every 30 seconds until interrupted (Ctrl-C).' }),
    interval: Flags.integer({ summary: 'Seconds between refreshes with --watch.', default: 30, min: 1, hidden: true }),
  };

  async run(): Promise<CommandCenter | undefined> {
    const { flags } = await this.parse(Dashboard);
    if (flags.watch && this.jsonEnabled()) throw new UsageError('--watch draws a live view; use --json without --watch for one snapshot');
    const api = await this.api();
    const fetchOnce = () => api.request<CommandCenter>('GET', `/api/v1/command-center?range=${encodeURIComponent(flags.range)}`);
    if (!flags.watch) {
      const cc = await fetchOnce();
      this.log(renderDashboard(cc));
      return cc;
    }
    await this.watch(fetchOnce, flags.interval * 1000);
    return undefined;
  }

  /** Redraws until SIGINT or SIGTERM; a failed refresh is shown and retried at the next tick. */
  private async watch(fetchOnce: () => Promise<CommandCenter>, intervalMs: number): Promise<void> {
    let running = true;
    let wake = (): void => {};
    const onSignal = (): void => {
      running = false;
      wake();
    };
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
    const clear = process.stdout.isTTY ? CLEAR : '';
    let last = '';
    try {
      while (running) {
        try {
          last = renderDashboard(await fetchOnce());
          this.log(`${clear}${last}\n\nRefreshing every ${intervalMs / 1000} s; Ctrl-C to stop.`);
        } catch (err) {
          if (!(err instanceof CliFailure)) throw err;
          this.log(
            `${clear}${last}${last ? '\n\n' : ''}Refresh failed at ${new Date().toISOString()}: ${err.line()}; retrying in ${intervalMs / 1000} s.`,
          );
        }
        if (!running) break;
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, intervalMs);
          wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
      }
    } finally {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    }
  }
}
