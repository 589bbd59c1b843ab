// gatewayctl approvals watch: the open approval requests as a live inbox in the terminal. It polls
// GET /approvals (and the selected request's GET /approvals/{id}) every few seconds and redraws on
// the alternate screen; a and d decide the selected request with an optional comment. The view and
// the keys are pure functions in ../../approvals-inbox.ts; this file owns the terminal and the API.
import readline from 'node:readline';
import { Flags } from '@oclif/core';
import { approvalDecideBody } from '../../../shared/verify-policy-schemas.js';
import { checkBody } from '../../agent-flags.js';
import type { ApiClient } from '../../api-client.js';
import type { Approval } from '../../approvals.js';
import { initialInbox, onKey, withApprovals, withDetail, withStatus, type InboxEffect, type Keypress } from '../../approvals-inbox.js';
import { renderInbox } from '../../approvals-inbox-screen.js';
import { GatewayCommand } from '../../base-command.js';
import { CliFailure, UsageError } from '../../errors.js';

/** Alternate screen on, cursor hidden; and back: cursor shown, the operator's screen as it was. */
const ENTER_SCREEN = '\u001b[?1049h\u001b[?25l\u001b[2J';
const LEAVE_SCREEN = '\u001b[0m\u001b[?25h\u001b[?1049l';

const clock = (): string => new Date().toISOString().slice(11, 19);

export default class ApprovalsWatch extends GatewayCommand {
  static override summary = 'A live inbox of the open approval requests: redraws as they arrive; approve or deny from the keyboard.';
  static override description =
    'Keys: up/down or k/j select, a approve, d deny (each asks for an optional comment: Enter confirms, Esc cancels), q or Ctrl-C quits. Deciding needs an Admin user token. Needs a terminal; in scripts use approvals list and approvals decide.';
  static override examples = ['<%= config.bin %> approvals watch'];

  static override flags = {
    interval: Flags.integer({ summary: 'Seconds between refreshes.', default: 2, min: 1, hidden: true }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(ApprovalsWatch);
    if (this.jsonEnabled()) throw new UsageError('approvals watch draws a live view; use "gatewayctl approvals list --json" for the data');
    if (!process.stdin.isTTY || !process.stdout.isTTY) {
      throw new UsageError(
        'approvals watch needs a terminal on stdin and stdout; in scripts and pipes use "gatewayctl approvals list" and "gatewayctl approvals decide ID"',
      );
    }
    await new Inbox(await this.api(), flags.interval * 1000).run();
  }
}

/** One session of the inbox on this process's terminal, until q, Ctrl-C, SIGTERM or SIGHUP. */
class Inbox {
  private state = initialInbox();
  private timer: NodeJS.Timeout | undefined;
  private refreshing = false;
  private again = false;
  private closed = false;
  private failure: unknown;
  private finish: () => void = () => {};
  private readonly input = process.stdin;
  private readonly output = process.stdout;

  constructor(
    private readonly api: ApiClient,
    private readonly intervalMs: number,
  ) {}

  async run(): Promise<void> {
    const finished = new Promise<void>((resolve) => {
      this.finish = resolve;
    });
    const onKeypress = (text: string | undefined, key: Keypress | undefined): void => this.onKeypress(text, key);
    const onResize = (): void => this.draw(true);
    const quit = (): void => this.quit();
    readline.emitKeypressEvents(this.input);
    this.input.setRawMode(true);
    this.output.write(ENTER_SCREEN);
    this.input.on('keypress', onKeypress);
    this.input.on('end', quit);
    this.output.on('resize', onResize);
    process.on('SIGTERM', quit);
    process.on('SIGHUP', quit);
    try {
      this.input.resume();
      this.draw();
      this.refresh();
      await finished;
    } finally {
      clearTimeout(this.timer);
      this.input.off('keypress', onKeypress);
      this.input.off('end', quit);
      this.output.off('resize', onResize);
      process.off('SIGTERM', quit);
      process.off('SIGHUP', quit);
      this.input.setRawMode(false);
      this.input.pause();
      this.output.write(LEAVE_SCREEN);
    }
    if (this.failure !== undefined) throw this.failure;
  }

  private quit(failure?: unknown): void {
    if (this.closed) return;
    this.closed = true;
    this.failure = failure;
    this.finish();
  }

  private draw(clear = false): void {
    if (this.closed) return;
    // One column spare: a line that fills the last column would leave the cursor waiting to wrap.
    const lines = renderInbox(this.state, {
      width: (this.output.columns || 80) - 1,
      height: this.output.rows || 24,
      source: this.api.url,
      intervalSeconds: this.intervalMs / 1000,
    });
    // Each line at its own row, so a line that still wraps (wide characters) is overwritten by the next.
    this.output.write((clear ? '\u001b[2J' : '') + lines.map((line, i) => `\u001b[${i + 1};1H${line}\u001b[K`).join(''));
  }

  private onKeypress(text: string | undefined, key: Keypress | undefined): void {
    const { state, effect } = onKey(this.state, text, key);
    this.state = state;
    this.draw();
    this.apply(effect);
  }

  private apply(effect: InboxEffect): void {
    if (effect.type === 'quit') this.quit();
    else if (effect.type === 'select') void this.guard(this.loadDetail(effect.id));
    else if (effect.type === 'decide') void this.guard(this.decide(effect));
  }

  /** A refusal or an unreachable daemon goes to the status line; anything else ends the session and is thrown. */
  private async guard(work: Promise<void>, what = 'Failed'): Promise<void> {
    try {
      await work;
    } catch (err) {
      if (!(err instanceof CliFailure)) return this.quit(err);
      this.state = withStatus(this.state, `${clock()} ${what}: ${err.line().replace(/^Error: /, '')}`);
      this.draw();
    }
  }

  /** Refreshes now (or right after the refresh in progress), then every interval. */
  private refresh(): void {
    if (this.closed) return;
    if (this.refreshing) {
      this.again = true;
      return;
    }
    clearTimeout(this.timer);
    this.refreshing = true;
    void (async () => {
      do {
        this.again = false;
        await this.guard(this.loadList(), `Refresh failed (retrying every ${this.intervalMs / 1000} s)`);
      } while (this.again && !this.closed);
      this.refreshing = false;
      if (!this.closed) this.timer = setTimeout(() => this.refresh(), this.intervalMs);
    })();
  }

  private async loadList(): Promise<void> {
    const { approvals } = await this.api.request<{ approvals: Approval[] }>('GET', '/api/v1/approvals');
    if (this.closed) return;
    const recovered = this.state.status.includes('Refresh failed');
    this.state = withApprovals(recovered ? withStatus(this.state, `${clock()} Refreshed again.`) : this.state, approvals, clock());
    this.draw();
    if (this.state.selectedId) await this.loadDetail(this.state.selectedId);
  }

  private async loadDetail(id: string): Promise<void> {
    const detail = await this.api.request<Approval>('GET', `/api/v1/approvals/${encodeURIComponent(id)}`);
    if (this.closed) return;
    this.state = withDetail(this.state, detail);
    this.draw();
  }

  private async decide({ id, subject, approved, comment }: Extract<InboxEffect, { type: 'decide' }>): Promise<void> {
    try {
      const body = checkBody(approvalDecideBody, { approved, ...(comment === undefined ? {} : { comment }) });
      const d = await this.api.request<Approval>('POST', `/api/v1/approvals/${encodeURIComponent(id)}/decide`, body);
      const why = d.comment ? `: ${d.comment}` : '';
      this.state = withStatus(this.state, `${clock()} ${d.status} ${subject} (${d.id}) by ${d.decided_by ?? '?'}${why}`, false);
    } catch (err) {
      if (!(err instanceof CliFailure)) throw err;
      this.state = withStatus(this.state, `${clock()} Not decided: ${err.line().replace(/^Error: /, '')}`, false);
    }
    this.draw();
    this.refresh();
  }
}
