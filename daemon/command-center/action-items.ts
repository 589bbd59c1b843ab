// What an operator should act on, derived from counts: each item appears exactly when its count is
// above zero, most severe first. `mcp_server_scan_failed` is the spec's; the others are ours.
import type { ActionItem, Severity } from '../../shared/command-center-schemas.js';

export interface ActionInputs {
  readonly serversScanFailed: number;
  readonly scanFailed: readonly { id: string; name: string }[];
  readonly poisoningSuspects: number;
  readonly toolsChanged: number;
  readonly approvalsOpen: number;
  readonly agentsPending: number;
  readonly serversPending: number;
  readonly anomalies: number;
  /** Anchor epochs waiting with an error or FAILED, counted for projects whose attestation is on. */
  readonly anchorEpochsStuck?: number;
}

const ORDER: readonly Severity[] = ['critical', 'high', 'medium', 'low'];

export function actionItems(i: ActionInputs): ActionItem[] {
  const items: ActionItem[] = [];
  const add = (count: number, type: string, severity: Severity, message: string, extra: Partial<ActionItem> = {}): void => {
    if (count > 0) items.push({ type, count, severity, message, ...extra });
  };
  add(
    i.poisoningSuspects,
    'mcp_poisoning_suspects',
    'critical',
    'MCP tools whose description looks like tool poisoning: review them before admitting.',
  );
  add(i.serversScanFailed, 'mcp_server_scan_failed', 'high', 'MCP servers whose last scan failed: check the server and scan again.', {
    servers: [...i.scanFailed],
  });
  add(
    i.toolsChanged,
    'mcp_tools_changed',
    'high',
    'Admitted MCP tools changed since admission and are blocked: review and release them again.',
  );
  add(i.anomalies, 'anomalies_detected', 'high', 'Traffic far above its own baseline: see agents.anomalies.');
  add(
    i.anchorEpochsStuck ?? 0,
    'anchoring_degraded',
    'high',
    'Ledger anchoring is not getting through (node down, wrong chain or no funds): see GET /api/v1/ledger/anchor or gatewayctl anchor status. Decisions are unaffected; traces stay PENDING until anchored.',
  );
  add(i.approvalsOpen, 'approvals_pending', 'medium', 'Held requests wait for a decision.');
  add(i.agentsPending, 'agents_pending_approval', 'medium', 'Registered agents wait for approval.');
  add(i.serversPending, 'mcp_servers_pending_approval', 'low', 'Registered MCP servers wait for approval.');
  return items.sort((a, b) => ORDER.indexOf(a.severity) - ORDER.indexOf(b.severity));
}
