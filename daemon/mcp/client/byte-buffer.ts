// Bytes read from an upstream, kept in one buffer that grows by doubling up to a hard bound. Each
// chunk is copied in and let go at once, so a refused answer leaves one block to free rather than
// thousands of socket-sized ones (which the allocator keeps as fragmented heap).
/** What a cleared buffer may keep for the next use (a long stream of events reuses it). */
const KEEP_BYTES = 1024 * 1024;

export class ByteBuffer {
  private buf: Buffer;
  private used = 0;

  constructor(
    private readonly limit: number,
    private readonly initial = 64 * 1024,
  ) {
    this.buf = Buffer.allocUnsafeSlow(Math.min(initial, limit));
  }

  get length(): number {
    return this.used;
  }

  /** Appends `chunk`; false (and nothing kept) when the total would pass the bound. */
  append(chunk: Uint8Array): boolean {
    const need = this.used + chunk.length;
    if (need > this.limit) return false;
    if (need > this.buf.length) {
      let size = this.buf.length;
      while (size < need) size *= 2;
      const grown = Buffer.allocUnsafeSlow(Math.min(size, this.limit));
      this.buf.copy(grown, 0, 0, this.used);
      this.buf = grown;
    }
    this.buf.set(chunk, this.used);
    this.used = need;
    return true;
  }

  /** The bytes so far (a view, not a copy). */
  bytes(): Buffer {
    return this.buf.subarray(0, this.used);
  }

  /** Drops what was kept, and a buffer grown past KEEP_BYTES with it. */
  clear(): void {
    this.used = 0;
    if (this.buf.length > KEEP_BYTES) this.buf = Buffer.allocUnsafeSlow(Math.min(this.initial, this.limit));
  }
}
