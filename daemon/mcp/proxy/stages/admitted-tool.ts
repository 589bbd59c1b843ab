// Stage 3: only an admitted, unchanged tool is called (-32002). A changed tool is
// APPROVED_FINGERPRINT_MISMATCH; a tool never admitted is TOOL_NOT_RELEASED, or
// TOOL_POISONING_SUSPECTED when its last scan found its description changed. A name the server's
// last scan did not list (unknown, or vanished since) is TOOL_NOT_RELEASED too: nothing admitted it.
import { pass, refuse, type Stage } from './types.js';

export const admissionStage: Stage = {
  name: 'admission',
  run(ctx) {
    const tool = ctx.tool;
    if (tool === null) return refuse('TOOL_NOT_RELEASED', { tool: ctx.toolName, detail: "the server's last scan did not list this tool" });
    if (!tool.present) return refuse('TOOL_NOT_RELEASED', { tool: tool.name, detail: "the server's last scan no longer lists this tool" });
    if (tool.approvedHash === null) {
      if (tool.findings.includes('description_changed'))
        return refuse('TOOL_POISONING_SUSPECTED', { tool: tool.name, findings: tool.findings });
      return refuse('TOOL_NOT_RELEASED', { tool: tool.name });
    }
    if (tool.approvedHash !== tool.currentFingerprint) return refuse('APPROVED_FINGERPRINT_MISMATCH', { tool: tool.name });
    return pass();
  },
};
