// One approval request as GET /api/v1/approvals and /approvals/{id} answer it (daemon/approvals/view.ts
// builds it): the request, the names a person deciding needs, who asked, and the held call's
// arguments as its trace keeps them (masked). Read by gatewayctl's approvals commands and the
// web console's inbox alike.

/** The person or client an identity provider named (an access token's issuer, sub and display name). */
export interface SubjectView {
  readonly issuer: string;
  readonly sub: string;
  readonly name: string;
}

export interface ApprovalView {
  readonly id: string;
  readonly kind: 'verify' | 'mcp';
  readonly trace_id: string | null;
  readonly server_id: string | null;
  readonly server_name: string | null;
  readonly tool_name: string | null;
  readonly agent_id: string | null;
  readonly agent_name: string | null;
  /** The key or token (its id) whose call opened the request: only it can use the approval. */
  readonly credential_id: string | null;
  /** That key's name (never its secret). */
  readonly credential_name: string | null;
  /** Who asked, when an access token made the call; null for an API key's call. */
  readonly requested_by_subject: SubjectView | null;
  /** The held call's arguments as its trace shows them (masked); null for verify requests. */
  readonly arguments: unknown;
  readonly arguments_hash: string;
  readonly status: string;
  readonly created_at: string;
  readonly expires_at: string;
  readonly decided_at: string | null;
  readonly decided_by: string | null;
  readonly comment: string | null;
  /** What the content policies found in the arguments: where and what, never the values. */
  readonly findings: readonly { readonly detector: string; readonly entity: string; readonly path: string; readonly effect: string }[];
}
