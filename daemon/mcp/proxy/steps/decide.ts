// Step `decide`: the stages (pipeline.ts TOOL_CALL_STAGES), pure over what `load` read, run once.
import { runStages } from '../../../pipeline/runner.js';
import type { Stage } from '../stages/types.js';
import type { Step } from './journey.js';

export function decideStep(stages: readonly Stage[]): Step {
  return {
    name: 'decide',
    run(j) {
      j.decision = runStages(stages, j.ctx!);
      return null;
    },
  };
}
