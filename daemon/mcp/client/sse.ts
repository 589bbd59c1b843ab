// Incremental text/event-stream parser (WHATWG HTML, "event stream interpretation") with a byte
// bound on one event: the bytes since the last event boundary, comments and unknown fields
// included, may not exceed `maxEventBytes`, so an endless line or event cannot grow memory.
// Lines are split on raw bytes: CR and LF never occur inside a UTF-8 multi-byte sequence.
//
// Events come out with every field a client acts on (data, event, id, retry), so a proxy that
// rewrites an event can emit it again whole (formatSseEvent): the `id` a client resumes from and
// the `retry` hint survive. An event with an id or retry but no data line is returned too (a
// browser does not dispatch it, but it still sets the last event id or the reconnection time).
// `progress` counts complete events and comment lines: what an idle deadline counts, never bytes.
import { ByteBuffer } from './byte-buffer.js';
import { releaseAfterRefusal } from './release-memory.js';
import { McpClientError } from './errors.js';

export interface SseEvent {
  /** `event:` field, `message` when absent. */
  readonly type: string;
  /** The data lines joined by LF; null when the event had no data line (not dispatched by a browser). */
  readonly data: string | null;
  /** The event's (last) `id:` field as sent, '' included (it resets the last event id); absent when none. */
  readonly id?: string;
  /** The event's (last) valid `retry:` field, ASCII digits as sent; absent when none. */
  readonly retry?: string;
}

/** A comment line (`:` and what follows), as sent: keep-alives a relaying proxy passes on in order. */
export interface SseComment {
  readonly comment: string;
}

const LF = 0x0a;
const CR = 0x0d;
const BOM = '\ufeff';

export class SseParser {
  private readonly maxEventBytes: number;
  private readonly decoder = new TextDecoder('utf-8');
  private readonly partial: ByteBuffer;
  private eventBytes = 0;
  private data: string[] = [];
  private type = '';
  private id: string | undefined;
  private retry: string | undefined;
  private fields = false;
  private completed = 0;
  private skipLf = false;
  private first = true;

  constructor(maxEventBytes: number) {
    this.maxEventBytes = maxEventBytes;
    this.partial = new ByteBuffer(maxEventBytes, 4096);
  }

  /** Complete events (any field) and comment lines seen so far. */
  get progress(): number {
    return this.completed;
  }

  /** True between events: no partial line and no field of an unfinished event pending. */
  get atBoundary(): boolean {
    return this.partial.length === 0 && !this.fields;
  }

  /** Feeds one chunk; returns the events it completed. Throws too_large past the bound. */
  push(chunk: Uint8Array): SseEvent[] {
    return this.pushItems(chunk).filter((item): item is SseEvent => !('comment' in item));
  }

  /** As push, with the comment lines too, everything in the order it came. */
  pushItems(chunk: Uint8Array): (SseEvent | SseComment)[] {
    const bytes = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    const events: (SseEvent | SseComment)[] = [];
    let start = 0;
    for (let i = 0; i < bytes.length; i += 1) {
      const b = bytes[i];
      if (b !== LF && b !== CR) continue;
      if (this.skipLf && b === LF && i === start && this.partial.length === 0) {
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
      this.bound(bytes.length - start);
      this.partial.append(bytes.subarray(start));
    }
    return events;
  }

  private takeLine(tail: Buffer): string {
    this.bound(tail.length + 1);
    const raw = this.partial.length === 0 ? tail : Buffer.concat([this.partial.bytes(), tail]);
    this.partial.clear();
    this.eventBytes += raw.length + 1;
    let text = this.decoder.decode(raw);
    if (this.first) {
      this.first = false;
      if (text.startsWith(BOM)) text = text.slice(1);
    }
    return text;
  }

  /** Throws too_large when `more` bytes on the line under way would take the event past the bound. */
  private bound(more: number): void {
    if (this.eventBytes + this.partial.length + more > this.maxEventBytes) {
      releaseAfterRefusal(this.eventBytes + this.partial.length);
      throw new McpClientError('too_large', `an upstream SSE event exceeds ${this.maxEventBytes} bytes`);
    }
  }

  private line(line: string): SseEvent | SseComment | undefined {
    if (line === '') return this.dispatch();
    if (line.startsWith(':')) {
      this.completed += 1;
      return { comment: line.slice(1) };
    }
    this.fields = true;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') this.data.push(value);
    else if (field === 'event') this.type = value;
    else if (field === 'id' && !value.includes('\0')) this.id = value;
    else if (field === 'retry' && /^[0-9]+$/.test(value)) this.retry = value;
    return undefined;
  }

  private dispatch(): SseEvent | undefined {
    if (this.fields) this.completed += 1;
    const event: SseEvent | undefined =
      this.data.length === 0 && this.id === undefined && this.retry === undefined
        ? undefined
        : {
            type: this.type === '' ? 'message' : this.type,
            data: this.data.length === 0 ? null : this.data.join('\n'),
            ...(this.id !== undefined ? { id: this.id } : {}),
            ...(this.retry !== undefined ? { retry: this.retry } : {}),
          };
    this.data = [];
    this.type = '';
    this.id = undefined;
    this.retry = undefined;
    this.fields = false;
    this.eventBytes = 0;
    return event;
  }
}

/** One event in wire form, every field it carries, ending with its blank line. */
export function formatSseEvent(event: SseEvent): string {
  const lines: string[] = [];
  if (event.id !== undefined) lines.push(`id: ${event.id}`);
  if (event.retry !== undefined) lines.push(`retry: ${event.retry}`);
  if (event.type !== 'message') lines.push(`event: ${event.type}`);
  if (event.data !== null) for (const l of event.data.split('\n')) lines.push(`data: ${l}`);
  return `${lines.join('\n')}\n\n`;
}
