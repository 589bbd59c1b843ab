// A secret split across sibling strings ({"a": "ghp_Zq8vLw3n", "b": "Px7rTb2m..."}, ["AKIA", "Z3MS..."])
// is no secret to a detector that reads one string at a time, and whole again to whoever joins the
// parts. The string values of one object or array are joined in document order, and a finding in
// the join that crosses from one part into the next is reported on each part it covers. Bounded: a
// part longer than 2 x EDGE characters takes part with its first and last EDGE characters only (a
// token crossing a boundary lies within EDGE of it), and a join holds at most MAX_JOIN characters
// (the next join starts with the last part of the one before, so no boundary is left out).
import type { Finding } from '../../detectors/types.js';

/** One sibling string inside a join: its path, where it sits in the join, and how to map back. */
interface Part {
  readonly path: string;
  readonly text: string;
  /** Offset of the part's piece in the join, and the piece's length. */
  readonly at: number;
  readonly length: number;
}

export interface Join {
  readonly text: string;
  readonly parts: readonly Part[];
}

/** A finding of a join on one of the parts it covers, in that part's own offsets. */
export interface PartFinding {
  readonly path: string;
  readonly span: Finding;
}

const EDGE = 512;
const MAX_JOIN = 64 * 1024;
// Never inside a token: a finding cannot cross the cut between a long part's head and tail.
const CUT = '\u0000';

function piece(text: string): string {
  return text.length <= 2 * EDGE + 1 ? text : text.slice(0, EDGE) + CUT + text.slice(-EDGE);
}

/** The part's own offset of a join offset inside its piece. */
function inPart(part: Part, offset: number): number {
  const p = offset - part.at;
  return part.text.length === part.length || p <= EDGE ? p : part.text.length - (part.length - p);
}

/** Joins of the sibling strings of one container (at least two), in document order. */
export function joinsOf(siblings: ReadonlyArray<{ path: string; text: string }>): Join[] {
  if (siblings.length < 2) return [];
  const joins: Join[] = [];
  let parts: Part[] = [];
  let text = '';
  for (let i = 0; i < siblings.length; i++) {
    const { path, text: full } = siblings[i]!;
    const p = piece(full);
    if (parts.length > 1 && text.length + p.length > MAX_JOIN) {
      joins.push({ text, parts });
      const last = parts[parts.length - 1]!;
      parts = [{ ...last, at: 0 }];
      text = text.slice(last.at);
    }
    parts.push({ path, text: full, at: text.length, length: p.length });
    text += p;
  }
  if (parts.length > 1) joins.push({ text, parts });
  return joins;
}

/** The findings of a join that cross from one part into another, on every part they cover. */
export function crossing(join: Join, found: readonly Finding[]): PartFinding[] {
  const out: PartFinding[] = [];
  for (const f of found) {
    const touched = join.parts.filter((p) => f.start < p.at + p.length && f.end > p.at);
    if (touched.length < 2) continue;
    for (const p of touched) {
      const start = inPart(p, Math.max(f.start, p.at));
      const end = inPart(p, Math.min(f.end, p.at + p.length));
      out.push({ path: p.path, span: { ...f, start, end } });
    }
  }
  return out;
}
