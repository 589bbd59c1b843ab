// What a stage of either governance pipeline (verify, the MCP proxy's tools/call) answers: it
// passes with what it found, or refuses with a code a caller branches on and the detail that
// explains it. Stages return one of these rather than throw, so a refusal is a value the runner reads.

export interface Pass<T> {
  readonly ok: true;
  readonly value: T;
}

export interface Refusal<C extends string = string, D = unknown> {
  readonly ok: false;
  readonly code: C;
  readonly detail?: D;
}

export type Verdict<T, R extends Refusal = Refusal> = Pass<T> | R;

export const pass = <T>(value: T): Pass<T> => ({ ok: true, value });
