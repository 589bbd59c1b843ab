// One tools/call through the proxy: the steps of pipeline.ts TOOL_CALL_STEPS, in order, on one
// journey (steps/journey.ts): read -> load -> decide -> record -> refuse (or wait) -> forward.
import type { Reply } from '../../http/types.js';
import { TOOL_CALL_STEPS } from './pipeline.js';
import { runJourney, type CallRequest, type ProxyDeps } from './steps/journey.js';

export type { CallRequest, ProxyDeps } from './steps/journey.js';

export function handleToolCall(deps: ProxyDeps, call: CallRequest): Promise<Reply> {
  return runJourney(TOOL_CALL_STEPS, { deps, call });
}
