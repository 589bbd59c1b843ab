// The three ways a gatewayctl command fails, each with its exit code: the daemon refused (1),
// the operator made a mistake (2), the daemon could not be reached or failed itself (3). A sign-in
// that must be done again counts as an operator mistake (2).

export const EXIT = { refused: 1, usage: 2, unavailable: 3 } as const;

/** The wire shape of a failure, for --json: the daemon's own error object where there is one. */
export interface ErrorJson {
  error: { code: string; message: string; request_id?: string; status?: number };
}

export abstract class CliFailure extends Error {
  abstract readonly exitCode: number;
  abstract readonly code: string;

  /** The one line written to stderr. */
  line(): string {
    return `Error: ${this.message}`;
  }

  toJson(): ErrorJson {
    return { error: { code: this.code, message: this.message } };
  }
}

/** Missing login, bad flags, nothing to do: fixed by the operator, not by retrying. */
export class UsageError extends CliFailure {
  readonly exitCode = EXIT.usage;
  readonly code = 'usage_error';
}

/** A refusal in the daemon's own words, passed through unchanged; a 5xx counts as a daemon fault. */
export class GatewayRefusal extends CliFailure {
  readonly exitCode: number;

  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly requestId: string | undefined,
  ) {
    super(message);
    this.exitCode = status >= 500 ? EXIT.unavailable : EXIT.refused;
  }

  override line(): string {
    return `Error: ${this.code}: ${this.message}${this.requestId ? ` (request_id ${this.requestId})` : ''}`;
  }

  override toJson(): ErrorJson {
    return { error: { code: this.code, message: this.message, request_id: this.requestId, status: this.status } };
  }
}

/** No answer, or an answer that is not the gateway's: network errors, timeouts, foreign servers. */
export class GatewayUnavailable extends CliFailure {
  readonly exitCode = EXIT.unavailable;
  readonly code = 'gateway_unavailable';
}

/** The saved sign-in with the identity provider can no longer be refreshed: the person signs in again. */
export class SignInRequired extends CliFailure {
  readonly exitCode = EXIT.usage;
  readonly code = 'sign_in_required';
}

/** The identity provider refused a request of the sign-in (its OAuth error passed through). */
export class IssuerRefusal extends CliFailure {
  readonly exitCode = EXIT.refused;
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}
