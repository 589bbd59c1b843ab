// gatewayctl connect: a ready configuration for an MCP host (VS Code, Cursor, Claude Code, Claude
// Desktop, or a neutral JSON shape) to reach one server through the gateway's proxy. It creates a
// Viewer project key for the purpose (shown once, inside the configuration only) and, with --write,
// merges the entry into the host's file without touching the others. Shapes: cli/host-configs.ts.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Args, Flags } from '@oclif/core';
import { GatewayCommand } from '../base-command.js';
import { configPath, writePrivateFile } from '../config.js';
import { UsageError } from '../errors.js';
import {
  claudeCodeBridgeEntry,
  claudeCodeCommand,
  claudeCodeEntry,
  claudeDesktopEntry,
  cursorEntry,
  HOST_CLIENTS,
  hostConfigFile,
  hostDocument,
  jsonEntry,
  mergeEntry,
  proxyHeaders,
  TOP_KEY,
  vscodeEntry,
  type BridgeTarget,
  type HostClient,
} from '../host-configs.js';
import { resolveAgent, resolveServer } from '../name-or-id.js';
import type { CreatedKey } from './keys/create.js';

/**
 * The running CLI's own script: a stdio host starts `node <this script> bridge ...` by absolute
 * paths, since `gatewayctl` is on no PATH in a checkout (npx finds it only inside one).
 */
const CLI_SCRIPT = fileURLToPath(new URL('../bin/gatewayctl.js', import.meta.url));

const HOST_NAMES: Readonly<Record<HostClient, string>> = {
  vscode: 'VS Code',
  cursor: 'Cursor',
  'claude-code': 'Claude Code',
  'claude-desktop': 'Claude Desktop',
  json: 'an MCP client',
};

interface ConnectResult {
  client: HostClient;
  server: { id: string; name: string; proxy_url: string };
  agent_id: string | null;
  key: { id: string; name: string; role: string };
  /** The host's file (--write merges into it); null for json. */
  file: string | null;
  written: boolean;
  /** An entry of the same name was replaced (--write --force). */
  replaced: boolean;
  /** The host's whole file holding just this entry (json: the neutral {url, headers}). */
  config: Record<string, unknown>;
  /** claude-code without --write: the `claude mcp add-json` command line (it names the token file, never the key). */
  command?: string;
  /** claude-desktop, and claude-code without --write: where the bridge reads the key (written 0600; claude-desktop only with --write). */
  token_file?: string;
  /** claude-desktop without --write: the key to save in token_file, shown this once. */
  token?: string;
}

export default class Connect extends GatewayCommand {
  static override summary = 'Print (or --write) a ready configuration for an MCP host to reach a server through the gateway.';
  static override description =
    'Creates a Viewer project key named after the host (or --key-name) and prints the configuration for that host with the '
    + "server's proxy URL and the key in its Authorization header (X-Agent-Id too with --agent). The key is shown once, "
    + "inside that configuration. --write merges the entry into the host's file (.vscode/mcp.json, .cursor/mcp.json, .mcp.json "
    + "in the current directory, or Claude Desktop's per-user file) keeping every other entry; an entry of the same name is "
    + 'replaced only with --force; a file that others may read is made 0600 (it holds the key). Claude Desktop speaks only '
    + "stdio: its entry runs this gatewayctl (node and its script, by absolute paths, so it works whatever the host's PATH) "
    + 'with `bridge SERVER`, which reads the key from a 0600 file, never from its arguments. For Claude Code without '
    + '--write, the key goes to such a file and the printed `claude mcp add-json` command adds that bridge entry, so no key '
    + 'reaches argv or shell history. Otherwise, without --write nothing is written anywhere.';

  static override examples = [
    '<%= config.bin %> connect weather --client vscode',
    '<%= config.bin %> connect weather --client cursor --agent support-bot --write',
    '<%= config.bin %> connect SERVER_ID --client claude-code',
    '<%= config.bin %> connect weather --client claude-desktop --write',
    '<%= config.bin %> connect weather --client json --key-name ci-smoke --json',
  ];

  static override args = {
    server: Args.string({ description: 'ID or name of the MCP server (see servers list).', required: true }),
  };

  static override flags = {
    client: Flags.string({ summary: 'The MCP host to configure.', options: [...HOST_CLIENTS], default: 'json' }),
    agent: Flags.string({ summary: 'Call as this agent (id or name; it must exist): adds the X-Agent-Id header.' }),
    'key-name': Flags.string({ summary: 'Name of the key created (default: named after the host and the server).' }),
    write: Flags.boolean({ summary: "Merge the entry into the host's config file instead of only printing it." }),
    force: Flags.boolean({ summary: 'With --write: replace an entry of the same name.', dependsOn: ['write'] }),
  };

  async run(): Promise<ConnectResult> {
    const { args, flags } = await this.parse(Connect);
    const client = flags.client as HostClient;
    const keyName = (flags['key-name'] ?? `${client} ${args.server}`).trim();
    if (keyName === '' || keyName.length > 200) throw new UsageError('--key-name: 1 to 200 characters');
    const api = await this.api();
    // Everything that can refuse is checked before the key exists: a refusal leaves no key behind.
    const server = await resolveServer(api, args.server, this.config.bin);
    const agent = flags.agent === undefined ? null : await resolveAgent(api, flags.agent, this.config.bin);
    const file = hostConfigFile(client, {
      platform: process.platform,
      cwd: process.cwd(),
      home: os.homedir(),
      APPDATA: process.env.APPDATA,
      XDG_CONFIG_HOME: process.env.XDG_CONFIG_HOME,
    });
    const entryName = server.name;
    if (flags.write) {
      if (file === null) throw new UsageError('--write: the json client has no config file; print it and use it as it is');
      await readHostFile(file, client, entryName, flags.force);
    }

    const created = await api.request<CreatedKey>('POST', '/api/v1/keys', { name: keyName, role: 'viewer' });
    if (server.status !== 'ACTIVE')
      this.notice(
        `Note: the server is ${server.status}; its tool calls are refused until it is ACTIVE (${this.config.bin} servers approve).`,
      );
    this.notice(`Created project key ${created.id} "${created.name}" (role ${created.role}) for ${HOST_NAMES[client]}.`);
    const target = { url: server.proxy_url, headers: proxyHeaders(created.key, agent?.id ?? null) };
    const base = {
      client,
      server: { id: server.id, name: server.name, proxy_url: server.proxy_url },
      agent_id: agent?.id ?? null,
      key: { id: created.id, name: created.name, role: created.role },
      file,
    };

    if (client === 'json') {
      const config = jsonEntry(target);
      this.notice('The key is shown once, in this configuration: store it now.');
      this.log(JSON.stringify(config, null, 2));
      return { ...base, written: false, replaced: false, config };
    }

    // The stdio bridge reads the key from a file: Claude Desktop's entry, and the one Claude Code's command adds.
    const viaBridge = client === 'claude-desktop' || (client === 'claude-code' && !flags.write);
    const tokenFile = viaBridge ? path.join(path.dirname(configPath()), 'tokens', `${created.id}.token`) : undefined;
    const bridge: BridgeTarget | null = tokenFile
      ? {
          command: process.execPath,
          cliScript: CLI_SCRIPT,
          server: server.id,
          gatewayUrl: baseUrlOf(server.proxy_url, server.id) ?? api.url,
          tokenFile,
          agentId: agent?.id ?? null,
        }
      : null;
    const entry = bridge
      ? client === 'claude-desktop'
        ? claudeDesktopEntry(bridge)
        : claudeCodeBridgeEntry(bridge)
      : client === 'vscode'
        ? vscodeEntry(target)
        : client === 'cursor'
          ? cursorEntry(target)
          : claudeCodeEntry(target);
    const config = hostDocument(client, entryName, entry);
    const command = bridge && client === 'claude-code' ? claudeCodeCommand(entryName, bridge) : undefined;
    const extra = { ...(command ? { command } : {}), ...(tokenFile ? { token_file: tokenFile } : {}) };

    if (!flags.write) {
      if (command) {
        await writePrivate(tokenFile!, `${created.key}\n`, 0o600);
        this.notice(
          `The key is in ${tokenFile} (mode 0600) and is shown nowhere. Run this to add the entry to Claude Code; it names that file, never the key`
            + ` (the entry below is what it adds; --write puts an HTTP entry holding the key in ${file} instead):`,
        );
        this.log(command);
        this.log('');
        this.log(JSON.stringify(config, null, 2));
        return { ...base, written: false, replaced: false, config, ...extra };
      }
      if (tokenFile) {
        this.notice(`Add this entry to ${file} (or run again with --write), and save the key below in ${tokenFile} with mode 0600:`);
        this.log(JSON.stringify(config, null, 2));
        this.log('');
        this.log(created.key);
        return { ...base, written: false, replaced: false, config, ...extra, token: created.key };
      }
      this.notice(`Put this in ${file} (or run again with --write). The key is shown once, here:`);
      this.log(JSON.stringify(config, null, 2));
      return { ...base, written: false, replaced: false, config, ...extra };
    }

    if (tokenFile) await writePrivate(tokenFile, `${created.key}\n`, 0o600);
    const existing = await readHostFile(file!, client, entryName, flags.force);
    const merged = mergeEntry(existing, TOP_KEY[client], entryName, entry, flags.force);
    if (!merged.ok) throw new UsageError(`${file}: an entry named "${entryName}" appeared meanwhile; run again with --force to replace it`);
    const loosened = await writePrivate(file!, `${JSON.stringify(merged.document, null, 2)}\n`, 0o600);
    if (loosened !== null) this.notice(`${file} was mode ${octal(loosened)}, open to other users; it now holds a key, so it is 0600.`);
    this.notice(
      `${merged.replaced ? 'Replaced' : 'Added'} "${entryName}" in ${file}`
        + (tokenFile ? `; the key is in ${tokenFile} (mode 0600).` : '; the file holds the key: keep it out of version control.'),
    );
    return { ...base, written: true, replaced: merged.replaced, config, ...extra };
  }
}

/** The gateway base the proxy URL was built on (the bridge's GATEWAY_URL). */
function baseUrlOf(proxyUrl: string, serverId: string): string | null {
  const suffix = `/api/v1/mcp/proxy/${encodeURIComponent(serverId)}`;
  return proxyUrl.endsWith(suffix) ? proxyUrl.slice(0, -suffix.length) : null;
}

/** The host's file parsed (undefined when absent); refuses what --write must not overwrite. */
async function readHostFile(file: string, client: HostClient, name: string, force: boolean): Promise<unknown> {
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new UsageError(`cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? 'unknown error'}`);
  }
  let parsed: unknown;
  try {
    parsed = text.trim() === '' ? undefined : JSON.parse(text);
  } catch {
    throw new UsageError(`${file} is not plain JSON (comments?); add the entry by hand: run without --write to print it`);
  }
  const top = TOP_KEY[client as Exclude<HostClient, 'json'>];
  const check = mergeEntry(parsed, top, name, {}, force);
  if (!check.ok) {
    if (check.reason === 'exists')
      throw new UsageError(`${file} already has an entry named "${name}"; run again with --force to replace it`);
    throw new UsageError(`${file}: ${check.reason === 'not_an_object' ? 'not a JSON object' : `"${top}" is not an object`}; fix it first`);
  }
  return parsed;
}

/**
 * Writes through a fresh file renamed into place (cli/config.ts). What is written holds a key: a new
 * file gets `mode` (0600), an existing one only its owner may use keeps its mode, and one that grants
 * its group or others anything (0644, as editors create them) is tightened to `mode`. Returns the
 * mode it had when it was tightened, else null.
 */
async function writePrivate(file: string, text: string, mode: number): Promise<number | null> {
  const had = await fs.stat(file).then(
    (s) => s.mode & 0o777,
    () => null,
  );
  const open = had !== null && (had & 0o077) !== 0;
  await writePrivateFile(file, text, had === null || open ? mode : had);
  return open ? had : null;
}

const octal = (mode: number) => `0${mode.toString(8).padStart(3, '0')}`;
