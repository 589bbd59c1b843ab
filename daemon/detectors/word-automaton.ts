// Many words found in one pass over a text (Aho-Corasick), for the keywords, secrets and injection
// detectors; case-insensitive callers match on lowerSameLength(text), whose offsets are the text's.

/** Lower-cased text with the same offsets (a few characters grow when lower-cased; then only A-Z are). */
export function lowerSameLength(text: string): string {
  const lower = text.toLowerCase();
  return lower.length === text.length ? lower : text.replace(/[A-Z]+/g, (s) => s.toLowerCase());
}

/**
 * Aho-Corasick over UTF-16 code units: every occurrence of every word in one pass over the text,
 * whatever the number of words (indexOf per word costs a pass each). ASCII steps go through a
 * precomputed table; other characters follow the trie and its failure links.
 */
export class WordAutomaton {
  private readonly ascii: Int32Array;
  private readonly edges: Array<Map<number, number>> = [new Map()];
  private readonly fail: number[] = [0];
  private readonly out: number[][] = [[]];

  constructor(readonly words: readonly string[]) {
    words.forEach((w, i) => {
      let s = 0;
      for (let k = 0; k < w.length; k++) {
        const c = w.charCodeAt(k);
        let next = this.edges[s]!.get(c);
        if (next === undefined) {
          next = this.edges.push(new Map()) - 1;
          this.fail.push(0);
          this.out.push([]);
          this.edges[s]!.set(c, next);
        }
        s = next;
      }
      if (w.length > 0) this.out[s]!.push(i);
    });
    const order = this.linkFailures();
    this.ascii = new Int32Array(this.edges.length * 128);
    for (const s of order) {
      for (let c = 0; c < 128; c++) {
        this.ascii[s * 128 + c] = this.edges[s]!.get(c) ?? (s === 0 ? 0 : this.ascii[this.fail[s]! * 128 + c]!);
      }
    }
  }

  /** Breadth-first failure links; returns the states in that order. */
  private linkFailures(): number[] {
    const order = [0];
    for (let q = 0; q < order.length; q++) {
      const u = order[q]!;
      for (const [c, v] of this.edges[u]!) {
        order.push(v);
        if (u !== 0) this.fail[v] = this.step(this.fail[u]!, c, false);
        this.out[v]!.push(...this.out[this.fail[v]!]!);
      }
    }
    return order;
  }

  private step(s: number, c: number, table = true): number {
    if (table && c < 128) return this.ascii[s * 128 + c]!;
    for (;;) {
      const next = this.edges[s]!.get(c);
      if (next !== undefined) return next;
      if (s === 0) return 0;
      s = this.fail[s]!;
    }
  }

  /** Calls `hit(word index, end offset)` for each occurrence, in order of end; returning `false` stops the scan (anything else goes on). */
  scan(text: string, hit: (word: number, end: number) => unknown): void {
    let s = 0;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      s = c < 128 ? this.ascii[s * 128 + c]! : this.step(s, c, false);
      const found = this.out[s]!;
      for (let k = 0; k < found.length; k++) if (hit(found[k]!, i + 1) === false) return;
    }
  }

  /** Which words occur at least once. */
  present(text: string): boolean[] {
    const seen = new Array<boolean>(this.words.length).fill(false);
    this.scan(text, (w) => {
      seen[w] = true;
    });
    return seen;
  }
}
