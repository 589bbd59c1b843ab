// `npm run bench -- content`: what the proxy's content stage (daemon/mcp/proxy/stages/content.ts)
// costs a tools/call, as CPU of the whole pipeline with the default content policies against the
// same pipeline with every arguments detector OFF, in the same run: on the echo tool's small
// arguments and on a 20 KB text argument (the realistic mixed prompt of the detector bench).
// Budget (issue 18): at most 0.05 ms per call plus 0.2 ms per KB inspected.
import { loadedContentPolicy } from '../../daemon/mcp/content/effective.js';
import { runStages, TOOL_CALL_STAGES } from '../../daemon/mcp/proxy/pipeline.js';
import type { CallContext } from '../../daemon/mcp/proxy/stages/types.js';
import { CONTENT_DETECTORS } from '../../shared/mcp-content-schemas.js';
import { callContext } from '../helpers/call-context.js';
import { realisticPrompt } from './detectors.js';

const OFF = CONTENT_DETECTORS.map((detector, i) =>
  loadedContentPolicy({
    id: `off${i}`,
    server_id: null,
    tool_name: null,
    direction: 'arguments',
    detector,
    action: 'OFF',
    config: {},
    created_by: null,
    created_at: '',
    updated_at: '',
  }),
);

const context = (args: Record<string, unknown>, off: boolean): CallContext =>
  callContext({ toolName: 'echo', arguments: args, contentPolicies: off ? OFF : [], detectorBudgetMs: 10_000 });

/** CPU ms per pipeline run, best and median of 10 rounds of ~100 ms. */
function cpuMsPerRun(ctx: CallContext): { best: number; median: number } {
  for (let i = 0; i < 50; i++) runStages(TOOL_CALL_STAGES, ctx);
  const per: number[] = [];
  for (let r = 0; r < 10; r++) {
    let n = 0;
    const wall = Date.now();
    const before = process.cpuUsage();
    while (Date.now() - wall < 100) {
      runStages(TOOL_CALL_STAGES, ctx);
      n++;
    }
    const used = process.cpuUsage(before);
    per.push((used.user + used.system) / 1000 / n);
  }
  per.sort((a, b) => a - b);
  return { best: per[0]!, median: per[5]! };
}

export function benchContent(): void {
  const cases: [string, Record<string, unknown>][] = [
    ['echo arguments {"message":"hello from the benchmark"}', { message: 'hello from the benchmark' }],
    ['20 KB text argument (mixed prompt)', { text: realisticPrompt(20).slice(0, 20 * 1024) }],
  ];
  console.log('\nproxy content stage (arguments), CPU per tools/call decision, best of 10 rounds (median in brackets)');
  for (const [name, args] of cases) {
    const kb = Buffer.byteLength(JSON.stringify(args)) / 1024;
    const off = cpuMsPerRun(context(args, true));
    const on = cpuMsPerRun(context(args, false));
    const extra = on.best - off.best;
    const budget = 0.05 + 0.2 * kb;
    console.log(
      `  ${name}: content off ${off.best.toFixed(4)} (${off.median.toFixed(4)}) ms, default policies ${on.best.toFixed(4)} (${on.median.toFixed(4)}) ms;`
        + ` extra ${extra.toFixed(4)} ms for ${kb.toFixed(2)} KB, budget ${budget.toFixed(3)} ms (${((extra / budget) * 100).toFixed(0)}% of it)`,
    );
  }
}
