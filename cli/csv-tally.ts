// Counting a CSV export as it streams past, without holding it: records end at a line feed outside
// quotes, the header is not a row, and a `#` line (the daemon's `# truncated:` trailer) is not one
// either. Plus the progress line that shows the count on a terminal.
import { Transform, type TransformCallback } from 'node:stream';

const LF = 0x0a;
const CR = 0x0d;
const QUOTE = 0x22;
const HASH = 0x23;
const TRAILER = '# truncated:';
/** A comment line longer than this is not the daemon's trailer; keep no more of it. */
const COMMENT_MAX = 1024;

export interface CsvTally {
  rows: number;
  bytes: number;
  /** The daemon's `# truncated: ...` line when it cut the export at its row cap. */
  truncated: string | null;
}

/** A pass-through stream that counts rows and bytes; `onData` runs after every chunk. */
export class CsvCounter extends Transform {
  readonly tally: CsvTally = { rows: 0, bytes: 0, truncated: null };
  private records = 0;
  private quoted = false;
  private atRecordStart = true;
  private comment: number[] | null = null;

  constructor(private readonly onData: (tally: Readonly<CsvTally>) => void = () => {}) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    this.tally.bytes += chunk.length;
    for (let i = 0; i < chunk.length; i++) this.step(chunk[i]!);
    this.onData(this.tally);
    done(null, chunk);
  }

  override _flush(done: TransformCallback): void {
    if (!this.atRecordStart) this.endRecord();
    done();
  }

  private step(byte: number): void {
    if (this.atRecordStart) {
      this.atRecordStart = false;
      this.comment = byte === HASH ? [] : null;
    }
    if (this.comment) {
      if (byte === LF) this.endRecord();
      else if (this.comment.length < COMMENT_MAX) this.comment.push(byte);
      return;
    }
    // A doubled quote inside a quoted field toggles twice, so quoting needs no lookahead.
    if (byte === QUOTE) this.quoted = !this.quoted;
    else if (byte === LF && !this.quoted) this.endRecord();
  }

  private endRecord(): void {
    if (this.comment) {
      const line = Buffer.from(this.comment.filter((b) => b !== CR)).toString('utf8');
      if (line.startsWith(TRAILER)) this.tally.truncated = line;
    } else {
      this.records += 1;
      this.tally.rows = Math.max(0, this.records - 1);
    }
    this.comment = null;
    this.quoted = false;
    this.atRecordStart = true;
  }
}

export interface ProgressOutput {
  readonly isTTY?: boolean;
  write(text: string): unknown;
}

/** `1,234` */
export function count(n: number): string {
  return n.toLocaleString('en-US');
}

/** Bytes for a human: `812 B`, `4.2 KB`, `31.0 MB` (powers of 1024). */
export function size(bytes: number): string {
  const units = ['B', 'KB', 'MB', 'GB', 'TB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return unit === 0 ? `${value} B` : `${value.toFixed(1)} ${units[unit]}`;
}

/** One self-overwriting line on a terminal, at most every `everyMs`; nothing at all elsewhere. */
export class Progress {
  private width = 0;
  private last = -Infinity;

  constructor(
    private readonly out: ProgressOutput,
    private readonly now: () => number = Date.now,
    private readonly everyMs = 200,
  ) {}

  update(tally: Readonly<CsvTally>): void {
    if (!this.out.isTTY) return;
    const time = this.now();
    if (time - this.last < this.everyMs) return;
    this.last = time;
    const line = `Exporting: ${count(tally.rows)} rows, ${size(tally.bytes)}`;
    this.out.write(`\r${line.padEnd(this.width)}`);
    this.width = line.length;
  }

  /** Blanks the line, so that what is written next starts on a clean line. */
  clear(): void {
    if (this.width === 0) return;
    this.out.write(`\r${' '.repeat(this.width)}\r`);
    this.width = 0;
  }
}
