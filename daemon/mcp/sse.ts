// Incremental text/event-stream parser (WHATWG HTML, "event stream interpretation") with a byte
// bound on one event: the bytes since the last event boundary, comments and unknown fields
// included, may not exceed `maxEventBytes`, so an endless line or event cannot grow memory.
// Lines are split on raw bytes: CR and LF never occur inside a UTF-8 multi-byte sequence.
import { McpClientError } from './errors.js';

export interface SseEvent {
  /** `event:` field, `message` when absent. */
  readonly type: string;
  readonly data: string;
}

const LF = 0x0a;
const CR = 0x0d;
const BOM = '\ufeff';

export class SseParser {
  private readonly maxEventBytes: number;
  private readonly decoder = new TextDecoder('utf-8');
  private partial: Buffer[] = [];
  private partialBytes = 0;
  private eventBytes = 0;
  private data: string[] = [];
  private type = '';
  private skipLf = false;
  private first = true;

  constructor(maxEventBytes: number) {
    this.maxEventBytes = maxEventBytes;
  }

  /** Feeds one chunk; returns the events it completed. Throws too_large past the bound. */
  push(chunk: Uint8Array): SseEvent[] {
    const bytes = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    const events: SseEvent[] = [];
    let start = 0;
    for (let i = 0; i < bytes.length; i += 1) {
      const b = bytes[i];
      if (b !== LF && b !== CR) continue;
      if (this.skipLf && b === LF && i === start && this.partialBytes === 0) {
        this.skipLf = false;
        start = i + 1;
        continue;
      }
      this.skipLf = b === CR;
      const line = this.takeLine(bytes.subarray(start, i));
      start = i + 1;
      const event = this.line(line);
      if (event) events.push(event);
    }
    if (start < bytes.length) {
      this.skipLf = false;
      this.partial.push(Buffer.from(bytes.subarray(start)));
      this.partialBytes += bytes.length - start;
      this.bound(0);
    }
    return events;
  }

  private takeLine(tail: Buffer): string {
    const raw = this.partialBytes === 0 ? tail : Buffer.concat([...this.partial, tail]);
    this.partial = [];
    this.partialBytes = 0;
    this.bound(raw.length + 1);
    let text = this.decoder.decode(raw);
    if (this.first) {
      this.first = false;
      if (text.startsWith(BOM)) text = text.slice(1);
    }
    return text;
  }

  private bound(completedLineBytes: number): void {
    this.eventBytes += completedLineBytes;
    if (this.eventBytes + this.partialBytes > this.maxEventBytes) {
      throw new McpClientError('too_large', `an upstream SSE event exceeds ${this.maxEventBytes} bytes`);
    }
  }

  private line(line: string): SseEvent | undefined {
    if (line === '') return this.dispatch();
    if (line.startsWith(':')) return undefined;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') this.data.push(value);
    else if (field === 'event') this.type = value;
    // `id` and `retry` only matter for reconnecting, which the client never does.
    return undefined;
  }

  private dispatch(): SseEvent | undefined {
    const event = this.data.length === 0 ? undefined : { type: this.type === '' ? 'message' : this.type, data: this.data.join('\n') };
    this.data = [];
    this.type = '';
    this.eventBytes = 0;
    return event;
  }
}
