// What each MCP host reads to reach a server through the gateway: the entry shapes, the file each
// host keeps them in, and how an entry is merged into a file that holds others. Pure: no I/O.
//
// Formats, checked against what their public docs say (read when this was written):
// - VS Code: `.vscode/mcp.json` in the workspace, top-level `servers`; an HTTP server is
//   `{"type": "http", "url", "headers"}` ("type" required, "http" or "sse"; "url" required; "headers"
//   optional, e.g. Authorization): the HTTP-server table of docs/copilot/reference/mcp-configuration.md
//   in microsoft/vscode-docs (code.visualstudio.com/docs/copilot/reference/mcp-configuration).
// - Cursor: `.cursor/mcp.json` in the project (`~/.cursor/mcp.json` for every project), top-level
//   `mcpServers`; a remote server is `{"url", "headers"}` (cursor.com/docs/mcp, as quoted by client
//   directories and vendors' Cursor guides with the same url + headers shape).
// - Claude Code: `claude mcp add-json <name> '<json>'` adds one entry of the `.mcp.json` shape (local
//   scope); project scope is `.mcp.json` at the project root, top-level `mcpServers`, an HTTP entry
//   `{"type": "http", "url", "headers"}` or a stdio one `{"type": "stdio", "command", "args", "env"}`
//   (the Claude Code MCP docs as quoted in guides, and the http-server.json example in
//   anthropics/claude-code's plugin-dev skill). `claude mcp add --header "Authorization: Bearer ..."`
//   would put the key in argv and shell history, so the printed command adds the bridge entry
//   instead, which reads the key from a 0600 file (as Claude Desktop's does).
// - Claude Desktop: `claude_desktop_config.json`, top-level `mcpServers`, stdio entries
//   `{"command", "args", "env"}`; the file is `~/Library/Application Support/Claude/` on macOS and
//   `%APPDATA%\Claude\` on Windows (the MCP user quickstart, modelcontextprotocol.io/quickstart/user,
//   as vendors' setup docs quote it). Linux has no official build; `$XDG_CONFIG_HOME/Claude/`
//   (`~/.config/Claude/`) is where community builds and installers look.
import path from 'node:path';

export const HOST_CLIENTS = ['vscode', 'cursor', 'claude-code', 'claude-desktop', 'json'] as const;
export type HostClient = (typeof HOST_CLIENTS)[number];

/** What an HTTP host sends: the proxy URL and the headers that carry the key (and the agent). */
export interface HttpTarget {
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
}

/** What a stdio host starts: `<node> <gatewayctl script> bridge SERVER`, the key read from a file (never argv). */
export interface BridgeTarget {
  /** The executable, by absolute path (node). */
  readonly command: string;
  /** gatewayctl's script, by absolute path, run by `command`. */
  readonly cliScript: string;
  readonly server: string;
  readonly gatewayUrl: string;
  readonly tokenFile: string;
  readonly agentId: string | null;
}

export function proxyHeaders(key: string, agentId: string | null): Record<string, string> {
  return { Authorization: `Bearer ${key}`, ...(agentId ? { 'X-Agent-Id': agentId } : {}) };
}

/** The top-level key of each host's file, under which entries are named (json has no file). */
export const TOP_KEY: Readonly<Record<Exclude<HostClient, 'json'>, 'servers' | 'mcpServers'>> = {
  vscode: 'servers',
  cursor: 'mcpServers',
  'claude-code': 'mcpServers',
  'claude-desktop': 'mcpServers',
};

export function vscodeEntry(t: HttpTarget): Record<string, unknown> {
  return { type: 'http', url: t.url, headers: { ...t.headers } };
}

export function cursorEntry(t: HttpTarget): Record<string, unknown> {
  return { url: t.url, headers: { ...t.headers } };
}

export function claudeCodeEntry(t: HttpTarget): Record<string, unknown> {
  return { type: 'http', url: t.url, headers: { ...t.headers } };
}

export function claudeDesktopEntry(b: BridgeTarget): Record<string, unknown> {
  return {
    command: b.command,
    args: [b.cliScript, 'bridge', b.server],
    env: {
      GATEWAY_URL: b.gatewayUrl,
      GATEWAY_TOKEN_FILE: b.tokenFile,
      ...(b.agentId ? { GATEWAY_AGENT_ID: b.agentId } : {}),
    },
  };
}

/** A neutral shape for SDK clients and anything else: the URL and the headers. */
export function jsonEntry(t: HttpTarget): Record<string, unknown> {
  return { url: t.url, headers: { ...t.headers } };
}

/** One word for a POSIX shell: bare when safe, else single-quoted. */
export function shellWord(word: string): string {
  return /^[A-Za-z0-9_./:@%+=,-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

/** Claude Code's stdio entry for the bridge: Claude Desktop's, typed. No key in it, only the file that holds it. */
export function claudeCodeBridgeEntry(b: BridgeTarget): Record<string, unknown> {
  return { type: 'stdio', ...claudeDesktopEntry(b) };
}

/**
 * The `claude mcp add-json` command line that adds the bridge entry: what it carries (paths, URL,
 * the token file's name, the agent id) is no secret, so argv and shell history hold no key.
 */
export function claudeCodeCommand(name: string, b: BridgeTarget): string {
  return ['claude', 'mcp', 'add-json', name, JSON.stringify(claudeCodeBridgeEntry(b))].map(shellWord).join(' ');
}

/** The whole file a host would read holding just this entry. */
export function hostDocument(client: Exclude<HostClient, 'json'>, name: string, entry: Record<string, unknown>): Record<string, unknown> {
  return { [TOP_KEY[client]]: { [name]: entry } };
}

export interface PathEnv {
  readonly platform: NodeJS.Platform;
  readonly cwd: string;
  readonly home: string;
  readonly APPDATA?: string;
  readonly XDG_CONFIG_HOME?: string;
}

/** The file `--write` merges into: the project's, or Claude Desktop's per-user file; json has none. */
export function hostConfigFile(client: HostClient, env: PathEnv): string | null {
  switch (client) {
    case 'vscode':
      return path.join(env.cwd, '.vscode', 'mcp.json');
    case 'cursor':
      return path.join(env.cwd, '.cursor', 'mcp.json');
    case 'claude-code':
      return path.join(env.cwd, '.mcp.json');
    case 'claude-desktop':
      return claudeDesktopFile(env);
    case 'json':
      return null;
  }
}

function claudeDesktopFile(env: PathEnv): string {
  if (env.platform === 'darwin') return path.join(env.home, 'Library', 'Application Support', 'Claude', 'claude_desktop_config.json');
  if (env.platform === 'win32') {
    const appData = env.APPDATA || path.join(env.home, 'AppData', 'Roaming');
    return path.win32.join(appData, 'Claude', 'claude_desktop_config.json');
  }
  return path.join(env.XDG_CONFIG_HOME || path.join(env.home, '.config'), 'Claude', 'claude_desktop_config.json');
}

export type MergeResult =
  | { readonly ok: true; readonly document: Record<string, unknown>; readonly replaced: boolean }
  | { readonly ok: false; readonly reason: 'exists' | 'not_an_object' | 'top_not_an_object' };

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * `existing` (a parsed file, or undefined when there is none) with `entry` set under `top.name`;
 * every other key and entry kept as it was. An entry of the same name is replaced only with `force`.
 */
export function mergeEntry(
  existing: unknown,
  top: 'servers' | 'mcpServers',
  name: string,
  entry: Record<string, unknown>,
  force: boolean,
): MergeResult {
  const doc = existing === undefined ? {} : existing;
  if (!isObject(doc)) return { ok: false, reason: 'not_an_object' };
  const entries = doc[top] === undefined ? {} : doc[top];
  if (!isObject(entries)) return { ok: false, reason: 'top_not_an_object' };
  const replaced = Object.hasOwn(entries, name);
  if (replaced && !force) return { ok: false, reason: 'exists' };
  return { ok: true, document: { ...doc, [top]: { ...entries, [name]: entry } }, replaced };
}
