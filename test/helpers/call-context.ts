// The context a tools/call's pipeline runs on (daemon/mcp/proxy/stages/types.ts CallContext), for
// tests and benchmarks that run the stages without a daemon: an ACTIVE server, an admitted and
// unchanged tool with an ALLOW rule, no agent, no approval, the default content policies; `over`
// replaces any part.
import type { CallContext, CallTool } from '../../daemon/mcp/proxy/stages/types.js';

export function callContext(over: Partial<CallContext> & { tool?: CallTool | null } = {}): CallContext {
  const name = over.toolName ?? over.tool?.name ?? 'delete_file';
  return {
    now: new Date('2026-11-21T10:00:00Z'),
    agent: null,
    credentialId: 'cred1',
    server: { id: 'srv', name: 'files', status: 'ACTIVE' },
    auth: { method: 'none' },
    toolName: name,
    tool: {
      id: 'tool1',
      name,
      present: true,
      approvedHash: 'sha256:a',
      currentFingerprint: 'sha256:a',
      riskLevel: 'high',
      action: 'delete',
      findings: [],
    },
    serverWide: ['ALLOW'],
    agentRules: [],
    argumentsHash: 'sha256:x',
    arguments: {},
    contentPolicies: [],
    // Budgets are not under test with this context: a secret rule's first use compiles it (over a second on a loaded machine).
    detectorBudgetMs: 60_000,
    approvalId: null,
    approval: null,
    openApprovals: null,
    approvalLimits: { perAgent: 20, perCredential: 50, perMinute: 30 },
    ...over,
  };
}
