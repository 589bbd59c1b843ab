// gatewayctl login: checks a token against the gateway, then saves URL and token (0600).
import { Flags } from '@oclif/core';
import { GatewayCommand } from '../base-command.js';
import { CONTEXT_NAME, currentContext, DEFAULT_CONTEXT, normaliseUrl, saveConnection } from '../config.js';
import { UsageError } from '../errors.js';

interface ProjectSummary {
  id: string;
  name: string;
}

export default class Login extends GatewayCommand {
  static override summary = 'Check a gateway token and save it with the gateway URL for later commands.';
  static override description = `The token is checked with GET /api/v1/project before anything is written. The file is
$GATEWAYCTL_CONFIG, else $XDG_CONFIG_HOME/gatewayctl/config.json or ~/.config/gatewayctl/config.json,
written with mode 0600. Pass --token - to read the token from stdin and keep it out of the shell history.`;

  static override examples = [
    '<%= config.bin %> login --url http://127.0.0.1:8080 --token "$(cat /var/lib/gatewayd/admin.token)"',
    'cat admin.token | <%= config.bin %> login --url https://gateway.example.com --token -',
  ];

  static override flags = {
    url: Flags.string({ summary: 'Base URL of the gateway.', required: true, env: 'GATEWAY_URL' }),
    token: Flags.string({ summary: 'Token to save ("-" reads it from stdin).', required: true, env: 'GATEWAY_TOKEN' }),
    context: Flags.string({ summary: 'Save it as this context (default: the current one, else "default") and make it current.' }),
  };

  async run(): Promise<{ url: string; config_path: string; context: string; project: ProjectSummary }> {
    const { flags } = await this.parse(Login);
    const saved = await checkAndSave(this, flags.url, flags.token, flags.context, true);
    this.log(
      `Logged in to ${saved.url} (project ${saved.project.name}, ${saved.project.id}) as context ${saved.context}. Saved to ${saved.config_path}.`,
    );
    return saved;
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
