// gatewayctl login: checks a token against the gateway, then saves URL and token (0600); or, with
// --oidc, signs a person in at the gateway's identity provider (device grant, cli/oidc-login.ts).
import { Flags } from '@oclif/core';
import { GatewayCommand } from '../base-command.js';
import { CONTEXT_NAME, currentContext, DEFAULT_CONTEXT, normaliseUrl, saveConnection } from '../config.js';
import { UsageError } from '../errors.js';
import { type SignedIn, signInWithDevice } from '../oidc-login.js';

interface ProjectSummary {
  id: string;
  name: string;
}

export default class Login extends GatewayCommand {
  static override summary = 'Check a gateway token, or sign in at the identity provider (--oidc), and save it with the gateway URL.';
  static override description = `The token is checked with GET /api/v1/project before anything is written. The file is
$GATEWAYCTL_CONFIG, else $XDG_CONFIG_HOME/gatewayctl/config.json or ~/.config/gatewayctl/config.json,
written with mode 0600. Pass --token - to read the token from stdin and keep it out of the shell history.

With --oidc a person signs in at the identity provider the gateway names (its
/.well-known/oauth-protected-resource), by the device authorization grant (RFC 8628): the command
prints a web address and a code, to be entered in a browser, and waits. The access and refresh
tokens are saved (0600); the access token is refreshed when it expires. --client-id names the
public client registered at the provider for gatewayctl (device grant and refresh token allowed).`;

  static override examples = [
    '<%= config.bin %> login --url http://127.0.0.1:8080 --token "$(cat /var/lib/gatewayd/admin.token)"',
    'cat admin.token | <%= config.bin %> login --url https://gateway.example.com --token -',
    '<%= config.bin %> login --url https://gateway.example.com --oidc --client-id gatewayctl',
  ];

  static override flags = {
    url: Flags.string({ summary: 'Base URL of the gateway.', required: true, env: 'GATEWAY_URL' }),
    token: Flags.string({ summary: 'Token to save ("-" reads it from stdin); or use --oidc.', env: 'GATEWAY_TOKEN' }),
    oidc: Flags.boolean({ summary: "Sign in at the gateway's identity provider (device authorization grant) instead of saving a token." }),
    'client-id': Flags.string({
      summary: "With --oidc: gatewayctl's client id at the identity provider.",
      env: 'GATEWAYCTL_OIDC_CLIENT_ID',
      default: 'gatewayctl',
    }),
    scope: Flags.string({
      summary: "With --oidc: the scopes to ask for (default: openid offline_access and the gateway's required scopes).",
    }),
    context: Flags.string({ summary: 'Save it as this context (default: the current one, else "default") and make it current.' }),
  };

  async run(): Promise<{ url: string; config_path: string; context: string; project: ProjectSummary } | SignedIn> {
    const { flags } = await this.parse(Login);
    if (flags.oidc) return this.signIn(flags);
    if (flags.token === undefined) throw new UsageError('give --token TOKEN (or --token - to read it from stdin), or --oidc to sign in');
    const saved = await checkAndSave(this, flags.url, flags.token, flags.context, true);
    this.log(
      `Logged in to ${saved.url} (project ${saved.project.name}, ${saved.project.id}) as context ${saved.context}. Saved to ${saved.config_path}.`,
    );
    return saved;
  }

  private async signIn(flags: { url: string; token?: string; 'client-id': string; scope?: string; context?: string }): Promise<SignedIn> {
    if (flags.token !== undefined)
      throw new UsageError('--oidc signs in instead of saving a token: give --token or --oidc, not both (is GATEWAY_TOKEN set?)');
    if (flags.context !== undefined && !CONTEXT_NAME.test(flags.context))
      throw new UsageError('--context: letters, digits, ".", "_" and "-", at most 64, starting with a letter or digit');
    const url = normaliseUrl(flags.url);
    const done = await signInWithDevice(this, url, flags['client-id'], flags.scope, flags.context, (line) => this.notice(line));
    const who = done.subject ? `${done.subject.name} (${done.subject.sub} at ${done.subject.issuer})` : 'the token';
    this.log(
      `Signed in to ${done.url} as ${who}, role ${done.role ?? 'none'}, project ${done.project.name} (${done.project.id}), as context ${done.context}. Saved to ${done.config_path}.`,
    );
    return done;
  }
}

/** Checks a token against its gateway (GET /api/v1/project), then saves it as a context. */
export async function checkAndSave(
  cmd: GatewayCommand,
  rawUrl: string,
  rawToken: string,
  name: string | undefined,
  makeCurrent: boolean,
): Promise<{ url: string; config_path: string; context: string; project: ProjectSummary }> {
  if (name !== undefined && !CONTEXT_NAME.test(name))
    throw new UsageError('--context: letters, digits, ".", "_" and "-", at most 64, starting with a letter or digit');
  const url = normaliseUrl(rawUrl);
  const token = rawToken === '-' ? await readStdin() : rawToken.trim();
  if (!token) throw new UsageError('the token is empty');
  const project = await cmd.checkToken({ url, token });
  const context = name ?? (await currentContext({ ...process.env, GATEWAY_URL: undefined, GATEWAY_TOKEN: undefined })) ?? DEFAULT_CONTEXT;
  const file = await saveConnection({ url, token }, process.env, context, makeCurrent);
  return { url, config_path: file, context, project: { id: project.id, name: project.name } };
}

async function readStdin(): Promise<string> {
  if (process.stdin.isTTY) throw new UsageError('--token - reads the token from stdin, but stdin is a terminal');
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8').trim();
}
