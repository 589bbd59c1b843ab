// The daemon's stdio servers: one StdioUpstream per registered stdio server (a shared process), or
// per client session of a 'per-session' server, made on first use (a scan, a call) and stopped by
// the emergency stops, at shutdown, at the session's end or idle time. It holds what start decided
// (sandbox-check.ts, allowed-commands.ts), so a refusal names its reason the same way at
// registration and at start; its processes live in this daemon only.
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from '../../log.js';
import type { AllowedCommands } from './allowed-commands.js';
import type { SandboxState } from './sandbox-check.js';
import { grantProblem, type PathGrant, type SandboxLimits } from './sandbox.js';
import { maskSecrets } from './stderr-mask.js';
import { StdioUpstream, type StdioState } from './stdio-upstream.js';

/** A registered stdio server as it is run: secret variables already opened, for this start only. */
export interface StdioDefinition {
  readonly id: string;
  readonly projectId: string;
  readonly command: string;
  readonly args: readonly string[];
  readonly cwd: string | null;
  /** Plain and secret variables together: the whole environment the process sees. */
  readonly env: Readonly<Record<string, string>>;
  /** Which of them are secret: their values are masked in what the server writes on stderr. */
  readonly secretNames: readonly string[];
  readonly grants: readonly PathGrant[];
  readonly network: boolean;
}

export interface StdioServersOptions {
  readonly commands: AllowedCommands;
  readonly sandbox: SandboxState;
  /** Each server's private writable directory is made here, one folder per server id. */
  readonly homesDir: string;
  /** The gateway's own folders: never visible inside a sandbox. */
  readonly hidden: readonly string[];
  readonly log: Logger;
  readonly limits?: SandboxLimits;
  readonly idleMs?: number;
  /** Per-session processes one server may have at once; a session past it is refused. */
  readonly maxSessionProcesses?: number;
}

/** V8 needs an address space of about 1 GiB to start; CPU time is per process run (a restart starts it over). */
export const DEFAULT_LIMITS: SandboxLimits = { memoryBytes: 2 * 1024 ** 3, openFiles: 1024, processes: 256, cpuSeconds: 3600 };

export class StdioRefusal extends Error {}

interface Entry {
  readonly serverId: string;
  readonly projectId: string;
  /** The client session the process is for; null for the server's shared process. */
  readonly sessionId: string | null;
  readonly upstream: StdioUpstream;
}

/** Entries by server id, or server id and session id for a per-session process. */
const keyOf = (serverId: string, sessionId: string | null): string => (sessionId === null ? serverId : `${serverId}\u0000${sessionId}`);

export class StdioServers {
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly options: StdioServersOptions) {}

  get sandbox(): SandboxState {
    return this.options.sandbox;
  }

  /** Why a registration naming `command` is refused; null when it may be registered. */
  commandRefusal(command: string): string | null {
    if (this.options.commands.empty) return 'stdio servers are off: GATEWAY_STDIO_COMMANDS lists no program a stdio server may run';
    if (this.options.commands.resolve(command) === null)
      return `${command} is not allowed: GATEWAY_STDIO_COMMANDS lists the programs a stdio server may run (${this.options.commands.entries.join(', ')})`;
    return null;
  }

  /** Why a registration may not be granted this path; null when it may. */
  grantRefusal(grant: PathGrant): string | null {
    return grantProblem(grant, this.options.hidden);
  }

  /**
   * The server's process (started on its first request): its shared one, or the one of client
   * session `sessionId`, which ends at its idle time. Throws StdioRefusal when it may not run here.
   */
  async upstream(def: StdioDefinition, sessionId: string | null = null): Promise<StdioUpstream> {
    const key = keyOf(def.id, sessionId);
    const known = this.entries.get(key);
    if (known) return known.upstream;
    if (this.options.sandbox.mode === 'unavailable') throw new StdioRefusal(this.options.sandbox.reason);
    const why = this.commandRefusal(def.command) ?? def.grants.map((g) => this.grantRefusal(g)).find((p) => p !== null);
    if (why) throw new StdioRefusal(why);
    const max = this.options.maxSessionProcesses ?? 64;
    if (sessionId !== null && this.sessionsOf(def.id).length >= max)
      throw new StdioRefusal(`the server already runs ${max} per-session processes, the most it may: end a session first`);
    const privateDir = path.join(this.options.homesDir, def.id);
    await fs.mkdir(privateDir, { recursive: true, mode: 0o700 });
    const log = this.options.log.child({ subsystem: 'stdio', server_id: def.id, ...(sessionId === null ? {} : { per_session: true }) });
    const upstream = new StdioUpstream({
      spec: {
        command: this.options.commands.resolve(def.command)!,
        args: def.args,
        cwd: def.cwd,
        env: def.env,
        network: def.network,
        grants: def.grants,
        privateDir,
        hidden: this.options.hidden,
        limits: this.options.limits ?? DEFAULT_LIMITS,
      },
      process: {
        confined: this.options.sandbox.mode === 'sandboxed',
        maxLineBytes: 16 * 1024 * 1024,
        maxLinesPerSecond: 10_000,
        stderrTailBytes: 4096,
        stderrLogLinesPerSecond: 20,
        log,
        mask: (text) =>
          maskSecrets(
            hideValues(
              text,
              def.secretNames.map((n) => def.env[n] ?? ''),
            ),
          ),
        stopGraceMs: 2000,
      },
      idleMs: this.options.idleMs ?? 10 * 60_000,
      // A session's process that idled out is forgotten: the session's next use starts a new one.
      ...(sessionId === null ? {} : { onIdleStop: () => this.forget(key, upstream) }),
      backoffMs: 1000,
      maxBackoffMs: 5 * 60_000,
      clientInfo: { name: 'governance-gateway', version: '1' },
      // Server-initiated requests (sampling, roots, elicitation) not relayed to a caller (stdio-upstream.ts:
      // none, or more than one, tools/call in flight that takes them): refused, never left waiting.
      onServerMessage: (message) => {
        if (message.id !== undefined && typeof message.method === 'string')
          upstream.answer(message.id as string | number, { error: { code: -32601, message: 'not available through the gateway yet' } });
      },
    });
    this.entries.set(key, { serverId: def.id, projectId: def.projectId, sessionId, upstream });
    return upstream;
  }

  /** Failures and whether it runs, for `servers get`: its shared process, else one of a session; null when this daemon never ran it. */
  state(id: string): StdioState | null {
    return (this.entries.get(id) ?? this.sessionsOf(id)[0])?.upstream.state ?? null;
  }

  /** Ends the process of one client session (the session was deleted), or with null the shared one; true when there was one. */
  async endSession(serverId: string, sessionId: string | null): Promise<boolean> {
    return this.end([keyOf(serverId, sessionId)].filter((k) => this.entries.has(k)));
  }

  /** Stops one server's processes, shared and per session; true when this daemon had one. */
  async stopServer(id: string): Promise<boolean> {
    return this.end([...this.entries].filter(([, e]) => e.serverId === id).map(([key]) => key));
  }

  /** Stops every process of a project (the project emergency stop); how many servers had one. */
  async stopProject(projectId: string): Promise<number> {
    const ids = new Set([...this.entries.values()].filter((e) => e.projectId === projectId).map((e) => e.serverId));
    await Promise.all([...ids].map((id) => this.stopServer(id)));
    return ids.size;
  }

  async close(): Promise<void> {
    await this.end([...this.entries.keys()]);
  }

  private sessionsOf(serverId: string): Entry[] {
    return [...this.entries.values()].filter((e) => e.serverId === serverId && e.sessionId !== null);
  }

  private async end(keys: string[]): Promise<boolean> {
    const gone = keys.map((key) => this.entries.get(key)!);
    for (const key of keys) this.entries.delete(key);
    await Promise.all(gone.map((e) => e.upstream.stop()));
    return gone.length > 0;
  }

  private forget(key: string, upstream: StdioUpstream): void {
    // Not when a request started it again while it was being stopped.
    if (this.entries.get(key)?.upstream === upstream && !upstream.state.running) this.entries.delete(key);
  }
}

/** The server's secret values never reach the log through its stderr, even in forms the detector does not know. */
function hideValues(text: string, values: readonly string[]): string {
  let out = text;
  for (const v of values) if (v.length >= 4) out = out.split(v).join('[REDACTED]');
  return out;
}
