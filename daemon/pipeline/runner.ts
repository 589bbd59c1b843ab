// The runner of both governance pipelines (verify/pipeline.ts, mcp/proxy/pipeline.ts). A pipeline
// is a frozen array of named stages in the specification's order; each stage is a pure function of
// a context loaded before the run and of what the earlier stages found. The first refusal answers.
import type { Refusal, Verdict } from './verdict.js';

export interface Stage<C, S extends object, R extends Refusal> {
  readonly name: string;
  /** Reads the loaded context and the earlier stages' findings; passes with its own, or refuses. No I/O. */
  run(ctx: C, state: Partial<S>): Verdict<Partial<S>, R>;
}

/** `forward`: every stage passed (the request goes on); `refuse`: the stage named refused it. */
export type Outcome<S extends object, R extends Refusal> =
  | { readonly kind: 'forward'; readonly state: Partial<S> }
  | { readonly kind: 'refuse'; readonly stage: string; readonly refusal: R; readonly state: Partial<S> };

/** Runs `stages` in order; the first refusal answers, with the state the stages before it built. */
export function runStages<C, S extends object, R extends Refusal>(stages: readonly Stage<C, S, R>[], ctx: C): Outcome<S, R> {
  let state: Partial<S> = {};
  for (const stage of stages) {
    const verdict = stage.run(ctx, state);
    if (!verdict.ok) return { kind: 'refuse', stage: stage.name, refusal: verdict, state };
    state = { ...state, ...verdict.value };
  }
  return { kind: 'forward', state };
}
