// One tool of an MCP server as GET /api/v1/mcp/servers/{id}/tools answers it (daemon/mcp/servers/
// tools.ts presentTool builds it). Read by gatewayctl's servers commands and the web console alike.

/** What a scan's poisoning heuristics found on a tool: where and what, named by code. */
export interface PoisoningFindingView {
  readonly code: string;
  readonly detail: string;
  readonly where: string;
}

export interface ToolView {
  readonly id: string;
  readonly server_id: string;
  readonly name: string;
  readonly title: string | null;
  readonly description: string | null;
  readonly input_schema: unknown;
  /** Null when the tool declares none, or no scan has read it since migration 00027. */
  readonly output_schema: unknown;
  readonly annotations: unknown;
  readonly risk_level: string;
  readonly category: string;
  readonly action: string;
  readonly description_hash: string;
  /** The effective server-wide rule (null: none, calls are held for approval). */
  readonly policy_action: string | null;
  readonly is_auto_generated: boolean;
  /** null: never admitted; true: admitted and unchanged; false: changed since admission. */
  readonly matches_approved: boolean | null;
  readonly approved_hash: string | null;
  readonly approved_at: string | null;
  /**
   * What was admitted ({ title, description, input_schema, output_schema, annotations }); null when
   * never admitted or admitted before migration 00023; without output_schema when before 00027.
   */
  readonly admitted_definition: Readonly<Record<string, unknown>> | null;
  readonly current_fingerprint: string;
  /** Set only while the tool waits for admission. */
  readonly proposed_rule: string | null;
  readonly proposed_rule_source: string | null;
  readonly poisoning_findings: readonly PoisoningFindingView[];
  /** False once a scan no longer lists it. */
  readonly present: boolean;
  readonly first_seen_at: string;
  readonly last_seen_at: string;
}
