// The base of every gatewayctl command: it owns the API client and the saved connection, and it
// is the one place that prints a failure and picks the exit code (errors.ts lists the codes).
import { Command, Errors, type Interfaces } from '@oclif/core';
import { ApiClient } from './api-client.js';
import { loadConnection, type Connection } from './config.js';
import { CliFailure, EXIT, UsageError, type ErrorJson } from './errors.js';

/** GET /api/v1/me: the credential behind a token; `subject` only for an identity provider's access token. */
export interface Me {
  credential_id: string;
  project_id: string;
  kind: string;
  role: string | null;
  user_id: string | null;
  name: string;
  gateway_version: string;
  subject?: { issuer: string; sub: string; name: string };
}

const HELP_HINT = 'See more help with --help';

export abstract class GatewayCommand extends Command {
  static override enableJsonFlag = true;

  private client: ApiClient | undefined;

  /** The client for the saved (or environment's) connection; missing login is an operator mistake. */
  protected async api(): Promise<ApiClient> {
    this.client ??= this.clientFor(await loadConnection());
    return this.client;
  }

  protected clientFor(connection: Connection): ApiClient {
    return new ApiClient(connection, this.config.userAgent);
  }

  /** Checks a token against its gateway before anything is saved: the project it belongs to. */
  async checkToken(connection: Connection): Promise<{ id: string; name: string }> {
    return this.clientFor(connection).request<{ id: string; name: string }>('GET', '/api/v1/project');
  }

  /** Who a token is to its gateway (GET /api/v1/me). */
  async whoIs(connection: Connection): Promise<Me> {
    return this.clientFor(connection).request<Me>('GET', '/api/v1/me');
  }

  /** stderr even in --json mode, so that warnings never corrupt the JSON on stdout. */
  protected notice(message: string): void {
    process.stderr.write(`${message}\n`);
  }

  protected override async catch(err: Interfaces.CommandError): Promise<void> {
    if (err instanceof Errors.ExitError) throw err;
    // Anything thrown before the arguments parsed (unknown flag, bad number, missing argument) is an operator mistake.
    const failure = toFailure(this.parsed || err instanceof CliFailure ? err : new UsageError(parseMessage(err.message)));
    if (this.jsonEnabled()) this.logJson(failure.json);
    process.stderr.write(`${failure.line}\n`);
    process.exitCode = failure.exitCode;
  }
}

interface Failure {
  exitCode: number;
  line: string;
  json: ErrorJson;
}

function toFailure(err: Error): Failure {
  if (err instanceof CliFailure) return { exitCode: err.exitCode, line: err.line(), json: err.toJson() };
  return {
    exitCode: EXIT.refused,
    line: `Error: ${err.message || String(err)}`,
    json: { error: { code: 'cli_error', message: err.message || String(err) } },
  };
}

/** oclif's parse messages, on one line, with oclif's own help hint moved to the end once. */
function parseMessage(message: string): string {
  const text = message
    .replace(/^The following errors? occurred:\s*/, '')
    .replaceAll(HELP_HINT, '')
    .replace(/:?\s*\n\s*/g, ': ')
    .replace(/[:\s]+$/, '');
  return `${text}\n${HELP_HINT}`;
}
