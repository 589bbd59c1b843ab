// The traces' dead-letter queue: an append-only file in this daemon's data dir that keeps every
// trace PostgreSQL could not take, each record checksummed and fsync'd before its caller is
// answered, until the replayer (dlq-replay.ts) has put it into the ledger.
//
// $GATEWAY_DATA_DIR/dlq/traces.log holds one record per line (dlq-line.ts: `<sha256 hex> <JSON>\n`).
// JSON.stringify escapes every control character, so a record never contains a line feed: a last
// line without one is a torn write, a line whose checksum fails is damaged. Neither is dropped
// silently: each is set aside in traces.corrupt.jsonl and reported.
import fs from 'node:fs/promises';
import path from 'node:path';
import { sqlState } from '../db/sqlstate.js';
import { encodeLine, LF, parseLine, type DlqLine, type DlqRecord } from './dlq-line.js';

export type SetAsideKind = 'corrupt' | 'rejected';

async function syncDir(dir: string): Promise<void> {
  const handle = await fs.open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

interface Pending {
  readonly data: Buffer;
  readonly count: number;
  resolve(): void;
  reject(err: unknown): void;
}

export class DeadLetterQueue {
  readonly file: string;
  private handle: fs.FileHandle | null = null;
  /** Bytes of complete, durable lines; appends and resets move it, nothing else writes the file. */
  private size = 0;
  private lines = 0;
  private waiting: Pending[] = [];
  private draining: Promise<void> | null = null;
  private lock: Promise<void> = Promise.resolve();

  constructor(readonly dir: string) {
    this.file = path.join(dir, 'traces.log');
  }

  /** Durable bytes and records (replayed or not) in the file. */
  get bytes(): number {
    return this.size;
  }
  get count(): number {
    return this.lines;
  }

  /**
   * Reads an existing queue at start: counts its records and sets a torn last record aside (it was
   * never acknowledged: callers are answered after the fsync). Returns what was set aside, if anything.
   */
  async open(): Promise<{ offset: number; bytes: number } | null> {
    await fs.mkdir(this.dir, { recursive: true, mode: 0o700 }).catch(() => undefined);
    let stat: Awaited<ReturnType<typeof fs.stat>>;
    try {
      stat = await fs.stat(this.file);
    } catch (err) {
      // No queue can exist there; anything else (EACCES, EIO) might hide one: refuse to start.
      if (sqlState(err) === 'ENOENT' || sqlState(err) === 'ENOTDIR') return null;
      throw err;
    }
    if (!stat.isFile()) throw new Error(`dead-letter queue ${this.file} is not a regular file`);
    const handle = await fs.open(this.file, 'r+');
    try {
      const buf = Buffer.alloc(1 << 20);
      let pos = 0;
      let end = 0;
      let lines = 0;
      for (let n: number; (n = (await handle.read(buf, 0, buf.length, pos)).bytesRead) > 0; pos += n) {
        for (let i = buf.indexOf(LF); i !== -1 && i < n; i = buf.indexOf(LF, i + 1)) {
          lines += 1;
          end = pos + i + 1;
        }
      }
      this.size = end;
      this.lines = lines;
      if (pos === end) return null;
      const tail = Buffer.alloc(pos - end);
      await handle.read(tail, 0, tail.length, end);
      await this.setAside('corrupt', { offset: end, reason: 'torn write: last record incomplete', raw_base64: tail.toString('base64') });
      await handle.truncate(end);
      await handle.sync();
      return { offset: end, bytes: tail.length };
    } finally {
      await handle.close();
    }
  }

  /** Appends records and resolves once they are on disk; concurrent appends share one write and fsync. */
  append(records: readonly DlqRecord[]): Promise<void> {
    const data = Buffer.from(records.map(encodeLine).join(''), 'utf8');
    return new Promise<void>((resolve, reject) => {
      this.waiting.push({ data, count: records.length, resolve, reject });
      this.draining ??= this.exclusive(() => this.drain());
    });
  }

  /** Reads the complete lines in [from, to); `to` must be a line boundary (a value of `bytes`). */
  async *read(from: number, to: number): AsyncGenerator<DlqLine> {
    if (from >= to) return;
    const handle = await fs.open(this.file, 'r');
    try {
      const chunk = Buffer.alloc(1 << 20);
      let carry = Buffer.alloc(0);
      for (let pos = from; pos < to; ) {
        const { bytesRead } = await handle.read(chunk, 0, Math.min(chunk.length, to - pos), pos);
        if (bytesRead === 0) break;
        pos += bytesRead;
        const data = Buffer.concat([carry, chunk.subarray(0, bytesRead)]);
        const base = pos - data.length;
        let start = 0;
        for (let lf = data.indexOf(LF); lf !== -1; lf = data.indexOf(LF, start)) {
          yield parseLine(data.subarray(start, lf), base + start, base + lf + 1);
          start = lf + 1;
        }
        carry = data.subarray(start);
      }
    } finally {
      await handle.close();
    }
  }

  /** Empties the file if it still ends at `offset` (everything before it replayed); false if not. */
  resetIfAt(offset: number): Promise<boolean> {
    return this.exclusive(async () => {
      if (this.size !== offset) return false;
      if (this.size > 0) {
        const handle = await this.ensureOpen();
        if (this.size !== offset) return false;
        await handle.truncate(0);
        await handle.datasync();
      }
      this.size = 0;
      this.lines = 0;
      return true;
    });
  }

  /** Keeps what cannot go into the ledger next to the queue (traces.corrupt.jsonl, traces.rejected.jsonl). */
  async setAside(kind: SetAsideKind, entry: Record<string, unknown>): Promise<string> {
    const file = path.join(this.dir, `traces.${kind}.jsonl`);
    const handle = await fs.open(file, 'a', 0o600);
    try {
      await handle.write(JSON.stringify({ at: new Date().toISOString(), ...entry }) + '\n');
      await handle.datasync();
    } finally {
      await handle.close();
    }
    return file;
  }

  async close(): Promise<void> {
    await this.exclusive(async () => {
      await this.handle?.close();
      this.handle = null;
    });
  }

  private exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.lock.then(fn);
    this.lock = run.then(
      () => undefined,
      () => undefined,
    );
    return run;
  }

  private async drain(): Promise<void> {
    while (this.waiting.length > 0) {
      const batch = this.waiting.splice(0);
      try {
        await this.write(Buffer.concat(batch.map((p) => p.data)));
        this.lines += batch.reduce((n, p) => n + p.count, 0);
        batch.forEach((p) => p.resolve());
      } catch (err) {
        batch.forEach((p) => p.reject(err));
      }
    }
    this.draining = null;
  }

  private async write(data: Buffer): Promise<void> {
    const handle = await this.ensureOpen();
    try {
      for (let done = 0; done < data.length; ) done += (await handle.write(data, done, data.length - done)).bytesWritten;
      await handle.datasync();
      this.size += data.length;
    } catch (err) {
      // Take back what may have reached the file; if even that fails, ensureOpen ends the stray bytes.
      await handle
        .truncate(this.size)
        .then(() => handle.datasync())
        .catch(() => undefined);
      this.handle = null;
      await handle.close().catch(() => undefined);
      throw err;
    }
  }

  private async ensureOpen(): Promise<fs.FileHandle> {
    if (this.handle) return this.handle;
    await fs.mkdir(this.dir, { recursive: true, mode: 0o700 });
    const handle = await fs.open(this.file, 'a', 0o600);
    try {
      const { size } = await handle.stat();
      if (size > this.size) await this.endStrayBytes(handle, size);
      else this.size = size;
      await syncDir(this.dir);
    } catch (err) {
      await handle.close().catch(() => undefined);
      throw err;
    }
    this.handle = handle;
    return handle;
  }

  /**
   * Bytes after the last acknowledged record (a failed write that could not be taken back) end with
   * a line feed, so they form lines of their own that replay reads (or reports) instead of merging
   * with the next record.
   */
  private async endStrayBytes(handle: fs.FileHandle, size: number): Promise<void> {
    const tail = Buffer.alloc(size - this.size);
    await handle.read(tail, 0, tail.length, this.size);
    let lines = tail.reduce((n, byte) => n + (byte === LF ? 1 : 0), 0);
    let total = size;
    if (tail[tail.length - 1] !== LF) {
      await handle.write('\n');
      await handle.datasync();
      lines += 1;
      total += 1;
    }
    this.size = total;
    this.lines += lines;
  }
}
