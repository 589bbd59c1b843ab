// One sandboxed stdio MCP server process and its two streams. stdout is newline-delimited JSON-RPC
// (the MCP stdio transport): each line is parsed and handed on; a line that is not a JSON object or
// array, or longer than the limit, is a protocol error, and so is a flood of lines beyond the rate a
// server needs: the process is stopped and the reason reported, never thrown into the proxy. stderr
// is the server's log: kept as a bounded tail and written to the daemon's log a bounded number of
// lines at a time, after `mask` (secrets out). stop() ends the process group: SIGTERM, then SIGKILL.
import { spawn, type ChildProcess } from 'node:child_process';
import type { Logger } from '../../log.js';
import { launchOf, type SandboxSpec } from './sandbox.js';

export type StdioEnd =
  | { readonly kind: 'exited'; readonly code: number | null; readonly signal: NodeJS.Signals | null }
  | { readonly kind: 'protocol'; readonly detail: string }
  | { readonly kind: 'spawn_failed'; readonly detail: string };

export interface StdioProcessOptions {
  readonly spec: SandboxSpec;
  /** false only under GATEWAY_STDIO_UNSAFE_NO_SANDBOX: started without bubblewrap (sandbox-check.ts). */
  readonly confined?: boolean;
  /** A stdout line longer than this (bytes) is a protocol error. */
  readonly maxLineBytes: number;
  /** stdout lines per second beyond which the server floods (a protocol error). */
  readonly maxLinesPerSecond: number;
  /** Bytes of stderr kept as the tail that `servers get` and errors show. */
  readonly stderrTailBytes: number;
  /** stderr lines written to the daemon's log per second at most (the rest are counted). */
  readonly stderrLogLinesPerSecond: number;
  readonly log: Logger;
  readonly mask: (text: string) => string;
  /** Wait this long after SIGTERM before SIGKILL. */
  readonly stopGraceMs: number;
  onMessage(message: unknown): void;
  onEnd(end: StdioEnd): void;
}

/** Parses one stdout line: a JSON object or array, else why not. */
export function parseLine(line: string): { ok: true; message: unknown } | { ok: false; detail: string } {
  let message: unknown;
  try {
    message = JSON.parse(line);
  } catch {
    return { ok: false, detail: 'the server wrote a line on stdout that is not JSON' };
  }
  if (message === null || typeof message !== 'object')
    return { ok: false, detail: 'the server wrote JSON on stdout that is not a JSON-RPC message' };
  return { ok: true, message };
}

export class StdioProcess {
  private child: ChildProcess | null = null;
  private ended = false;
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private windowStart = 0;
  private linesInWindow = 0;
  private stderrTail = '';
  private stderrWindowStart = 0;
  private stderrLines = 0;
  private stderrDropped = 0;
  private exited: Promise<void> = Promise.resolve();

  constructor(private readonly options: StdioProcessOptions) {}

  get pid(): number | null {
    return this.child?.pid ?? null;
  }

  /** The last bytes the server wrote on stderr, masked. */
  get stderr(): string {
    return this.options.mask(this.stderrTail);
  }

  start(): void {
    const launch = launchOf(this.options.spec, this.options.confined ?? true);
    const child = spawn(launch.file, launch.args, { stdio: ['pipe', 'pipe', 'pipe'], detached: true, env: launch.env, cwd: launch.cwd });
    this.child = child;
    this.exited = new Promise((resolve) => child.once('close', () => resolve()));
    child.once('error', (err) => this.end({ kind: 'spawn_failed', detail: (err as NodeJS.ErrnoException).code ?? 'spawn error' }));
    child.once('exit', (code, signal) => this.end({ kind: 'exited', code, signal }));
    child.stdin!.on('error', () => {}); // a closed stdin shows as the exit
    child.stdout!.on('data', (chunk: Buffer) => this.onStdout(chunk));
    child.stderr!.on('data', (chunk: Buffer) => this.onStderr(chunk));
  }

  /** Writes one message as one line; false when the process is gone. */
  send(message: unknown): boolean {
    if (this.ended || !this.child?.stdin?.writable) return false;
    this.child.stdin.write(`${JSON.stringify(message)}\n`);
    return true;
  }

  /** Ends the process and everything it started (its process group; the PID namespace does the rest). */
  async stop(): Promise<void> {
    const child = this.child;
    if (!child || child.pid === undefined) return; // never started (spawn failed): nothing to end or wait for
    if (child.exitCode !== null || child.signalCode !== null) return this.exited;
    this.signal('SIGTERM');
    const timer = setTimeout(() => this.signal('SIGKILL'), this.options.stopGraceMs);
    await this.exited;
    clearTimeout(timer);
  }

  private signal(signal: NodeJS.Signals): void {
    const pid = this.child?.pid;
    if (pid === undefined) return;
    try {
      process.kill(-pid, signal);
    } catch {
      // already gone
    }
  }

  private end(end: StdioEnd): void {
    if (this.ended) return;
    this.ended = true;
    if (end.kind === 'protocol') this.signal('SIGKILL');
    this.options.onEnd(end);
  }

  private protocolError(detail: string): void {
    this.pending = [];
    this.pendingBytes = 0;
    this.end({ kind: 'protocol', detail });
  }

  private onStdout(chunk: Buffer): void {
    if (this.ended) return;
    let start = 0;
    for (let nl = chunk.indexOf(10, start); nl !== -1; nl = chunk.indexOf(10, start)) {
      const part = chunk.subarray(start, nl);
      start = nl + 1;
      if (this.pendingBytes + part.length > this.options.maxLineBytes)
        return this.protocolError(`a stdout line longer than ${this.options.maxLineBytes} bytes`);
      const line = this.pending.length === 0 ? part.toString('utf8') : Buffer.concat([...this.pending, part]).toString('utf8');
      this.pending = [];
      this.pendingBytes = 0;
      if (line.trim() === '') continue;
      if (!this.countLine()) return this.protocolError(`more than ${this.options.maxLinesPerSecond} stdout lines in a second`);
      const parsed = parseLine(line);
      if (!parsed.ok) return this.protocolError(parsed.detail);
      this.options.onMessage(parsed.message);
      if (this.ended) return;
    }
    const rest = chunk.subarray(start);
    if (rest.length === 0) return;
    if (this.pendingBytes + rest.length > this.options.maxLineBytes)
      return this.protocolError(`a stdout line longer than ${this.options.maxLineBytes} bytes`);
    this.pending.push(Buffer.from(rest));
    this.pendingBytes += rest.length;
  }

  private countLine(): boolean {
    const now = Date.now();
    if (now - this.windowStart >= 1000) {
      this.windowStart = now;
      this.linesInWindow = 0;
    }
    this.linesInWindow += 1;
    return this.linesInWindow <= this.options.maxLinesPerSecond;
  }

  private onStderr(chunk: Buffer): void {
    const text = chunk.toString('utf8');
    this.stderrTail = (this.stderrTail + text).slice(-this.options.stderrTailBytes);
    const now = Date.now();
    if (now - this.stderrWindowStart >= 1000) {
      if (this.stderrDropped > 0)
        this.options.log.warn({ dropped: this.stderrDropped }, 'stdio server: stderr lines not logged (rate limit)');
      this.stderrWindowStart = now;
      this.stderrLines = 0;
      this.stderrDropped = 0;
    }
    for (const line of text.split('\n')) {
      if (line.trim() === '') continue;
      this.stderrLines += 1;
      if (this.stderrLines > this.options.stderrLogLinesPerSecond) this.stderrDropped += 1;
      else this.options.log.info({ stderr: this.options.mask(line.slice(0, 1000)) }, 'stdio server stderr');
    }
  }
}
